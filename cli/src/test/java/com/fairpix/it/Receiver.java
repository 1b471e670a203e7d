package com.fairpix.it;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real webhook receiver on 127.0.0.1 for the tests: records every request's raw body and headers
 * per path, and answers from a per-path script (status, extra headers, delay), 200 when it runs out.
 */
final class Receiver implements AutoCloseable {
    /** One scripted answer. */
    record Answer(int status, Map<String, String> headers, long delayMillis) {
        static Answer of(int status) {
            return new Answer(status, Map.of(), 0);
        }
    }

    /** One request as received: the raw body bytes and the webhook headers. */
    record Request(Instant at, String path, byte[] body, String id, String timestamp, String signature) {
        Map<String, List<String>> headers() {
            return Map.of("webhook-id", List.of(id), "webhook-timestamp", List.of(timestamp), "webhook-signature", List.of(signature));
        }

        String text() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private final HttpServer server;
    private final Map<String, ConcurrentLinkedQueue<Answer>> scripts = new ConcurrentHashMap<>();
    private final Map<String, Answer> defaults = new ConcurrentHashMap<>();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    final AtomicInteger concurrent = new AtomicInteger();
    final AtomicInteger maxConcurrent = new AtomicInteger();

    Receiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
        server.createContext("/", exchange -> {
            int now = concurrent.incrementAndGet();
            maxConcurrent.accumulateAndGet(now, Math::max);
            try {
                String path = exchange.getRequestURI().getPath();
                byte[] body = exchange.getRequestBody().readAllBytes();
                var h = exchange.getRequestHeaders();
                requests.add(new Request(Instant.now(), path, body, h.getFirst("webhook-id"), h.getFirst("webhook-timestamp"), h.getFirst("webhook-signature")));
                ConcurrentLinkedQueue<Answer> q = scripts.get(path);
                Answer a = q == null ? null : q.poll();
                if (a == null) a = defaults.getOrDefault(path, Answer.of(200));
                if (a.delayMillis() > 0) {
                    try {
                        Thread.sleep(a.delayMillis());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                a.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
                exchange.sendResponseHeaders(a.status(), -1);
            } catch (IOException e) {
                // the dispatcher gave up on us (timeout); fine
            } finally {
                concurrent.decrementAndGet();
                exchange.close();
            }
        });
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    void script(String path, Answer... answers) {
        scripts.computeIfAbsent(path, p -> new ConcurrentLinkedQueue<>()).addAll(List.of(answers));
    }

    void otherwise(String path, Answer answer) {
        defaults.put(path, answer);
    }

    List<Request> at(String path) {
        List<Request> out = new ArrayList<>();
        for (Request r : requests) if (r.path().equals(path)) out.add(r);
        return out;
    }

    List<Request> all() {
        return List.copyOf(requests);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
