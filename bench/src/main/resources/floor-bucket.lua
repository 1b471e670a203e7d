-- The floor of any one-round-trip Redis limiter: a plain token bucket on one key (one EVALSHA,
-- Redis TIME, HMGET, HSET, PEXPIRE). Tokens and rates as integers per µs-scaled units like
-- admission.lua (nanotokens, millitokens/s), so the two pay for the same number formatting.
-- KEYS[1] bucket hash; ARGV: 1 rate (millitokens/s), 2 burst (nanotokens), 3 cost (nanotokens)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local rate, burst, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local h = redis.call('HMGET', KEYS[1], 'v', 't')
local v = tonumber(h[1]) or burst
local last = tonumber(h[2]) or now
if now > last then v = math.min(burst, v + (now - last) * rate) end
local ok = 0
if v >= cost then
  v = v - cost
  ok = 1
end
redis.call('HSET', KEYS[1], 'v', string.format('%.0f', v), 't', string.format('%.0f', now))
redis.call('PEXPIRE', KEYS[1], math.floor((burst - v) / rate / 1000) + 1000)
return ok
