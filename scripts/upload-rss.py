#!/usr/bin/env python3
"""Sends 400 MB of zeros as one chunked raw upload to an ingest-api and samples its RSS every 5 ms.

Usage: scripts/upload-rss.py PORT TENANT_API_KEY INGEST_PID  (docs/hostile-tenants.md, "Measured")."""
import socket, sys, time, threading, urllib.parse
port, key, pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
def rss():
    with open(f"/proc/{pid}/status") as f:
        for l in f:
            if l.startswith("VmRSS:"): return int(l.split()[1]) // 1024
peak=[rss()]; base=peak[0]; stop=[False]
def sample():
    while not stop[0]:
        peak[0]=max(peak[0], rss()); time.sleep(0.005)
t=threading.Thread(target=sample); t.start()
spec=urllib.parse.quote('{"variants":{"t":[{"op":"resize","width":64}]}}')
s=socket.create_connection(("127.0.0.1",port)); s.settimeout(120)
s.sendall((f"POST /v1/jobs?spec={spec} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\nContent-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n").encode())
chunk=b"\0"*65536; head=b"%x\r\n"%len(chunk); sent=0; answer=[None]
def reader():
    try: answer[0]=s.recv(300)
    except Exception as e: answer[0]=repr(e).encode()
r=threading.Thread(target=reader); r.start()
t0=time.time()
try:
    while sent < 400*1024*1024 and answer[0] is None:
        s.sendall(head+chunk+b"\r\n"); sent+=len(chunk)
    if answer[0] is None: s.sendall(b"0\r\n\r\n")
except Exception as e:
    pass
r.join(120); stop[0]=True; t.join()
print(f"sent {sent//(1024*1024)} MB in {time.time()-t0:.1f}s; RSS {base} MB before, peak {peak[0]} MB; answer: {answer[0][:120]!r}")
