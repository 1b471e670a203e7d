-- fairpix admission: one decision (or one forced charge) for one tenant, atomically, in one round trip.
-- Mirrors com.fairpix.ingest.admission.internal.LocalAdmission; see docs/admission.md.
-- Units: nanotokens, millitokens/s, microseconds. Lua numbers are doubles: every value here stays
-- below 2^53, integer division is corrected by hand, and numbers are written with %.0f (Lua's
-- default %.14g would round anything above 1e14).
--
-- KEYS[1] tenant hash fp:{t}:adm   (p, pt: guaranteed bucket; q, qt: ceiling bucket; d, dc: quota day, count)
-- KEYS[2] tenant zset fp:{t}:leases (job id -> lease expiry, µs)
-- KEYS[3] pool hash   fp:{pool}:adm:<worker pool> (g, gt: the pool's borrowing bucket, refilled at its capacity C)
-- ARGV: 1 now µs or '' (use Redis TIME; tests pass a time), 2 op ('decide'|'charge'), 3 cost,
--       4 rate, 5 burst, 6 ceil rate (0 = no borrowing), 7 ceil burst, 8 pool rate, 9 pool burst,
--       10 daily quota, 11 day offset µs, 12 max concurrent, 13 lease ttl µs, 14 job id, 15 shadow mask
-- Returns {allowed, violated mask, shadow mask, retry µs, p, day count, leases, borrowed, now}

local function idiv(a, b)
  local q = math.floor(a / b)
  local r = a - q * b
  if r < 0 then q = q - 1 elseif r >= b then q = q + 1 end
  return q
end
local function ceildiv(a, b) return -idiv(-a, b) end
local function refill(tokens, last, now, rate, cap)
  if tokens >= cap then return cap end
  local elapsed = now - last
  if elapsed <= 0 then return tokens end
  if elapsed >= ceildiv(cap - tokens, rate) then return cap end
  return tokens + elapsed * rate
end
local function wait(tokens, need, rate)
  if tokens >= need then return 0 end
  return ceildiv(need - tokens, rate)
end
local function untilfull(tokens, rate, cap)
  if tokens >= cap then return 0 end
  return ceildiv(cap - tokens, rate)
end
local function f(x) return string.format('%.0f', x) end

local now
if ARGV[1] ~= '' then
  now = tonumber(ARGV[1])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local op = ARGV[2]
local cost = tonumber(ARGV[3])
local rate, burst = tonumber(ARGV[4]), tonumber(ARGV[5])
local crate, cburst = tonumber(ARGV[6]), tonumber(ARGV[7])
local grate, gburst = tonumber(ARGV[8]), tonumber(ARGV[9])
local quota, offset = tonumber(ARGV[10]), tonumber(ARGV[11])
local maxconc, ttl = tonumber(ARGV[12]), tonumber(ARGV[13])
local job, shadowmask = ARGV[14], tonumber(ARGV[15])
local DAY = 86400000000
local DEBT_FLOOR = -1000000000000000
local borrow = crate > 0 and cburst > 0 and grate > 0 and gburst > 0

local h = redis.call('HMGET', KEYS[1], 'p', 'pt', 'q', 'qt', 'd', 'dc')
local p = tonumber(h[1]) or burst
local pt = tonumber(h[2]) or now
p = refill(p, pt, now, rate, burst)
local q, g = 0, 0
if borrow then
  q = refill(tonumber(h[3]) or cburst, tonumber(h[4]) or now, now, crate, cburst)
  local gh = redis.call('HMGET', KEYS[3], 'g', 'gt')
  g = refill(tonumber(gh[1]) or gburst, tonumber(gh[2]) or now, now, grate, gburst)
end
local day = idiv(now - offset, DAY)
local dc = tonumber(h[6]) or 0
if tonumber(h[5]) ~= day then dc = 0 end

-- Writes the tenant's state back; the hash expires once every bucket would be full and the
-- quota day is over, so idle tenants cost no memory.
local function save()
  local keep = untilfull(p, rate, burst)
  if borrow then keep = math.max(keep, untilfull(q, crate, cburst)) end
  if dc > 0 then keep = math.max(keep, (day + 1) * DAY + offset - now) end
  if keep <= 0 then
    redis.call('DEL', KEYS[1])
  else
    redis.call('HSET', KEYS[1], 'p', f(p), 'pt', f(now), 'd', f(day), 'dc', f(dc))
    if borrow then redis.call('HSET', KEYS[1], 'q', f(q), 'qt', f(now)) end
    redis.call('PEXPIRE', KEYS[1], f(ceildiv(keep, 1000) + 1000))
  end
  if borrow then
    local gkeep = untilfull(g, grate, gburst)
    if gkeep <= 0 then
      redis.call('DEL', KEYS[3])
    else
      redis.call('HSET', KEYS[3], 'g', f(g), 'gt', f(now))
      redis.call('PEXPIRE', KEYS[3], f(ceildiv(gkeep, 1000) + 1000))
    end
  end
end

if op == 'charge' then
  p = math.max(p - cost, DEBT_FLOOR)
  if borrow then
    q = math.max(q - cost, -cburst)
    g = math.max(g - cost, -gburst)
  end
  save()
  return {1, 0, 0, 0, f(p), dc, 0, 0, f(now)}
end

local maxcost = burst
if borrow then maxcost = math.max(burst, cburst) end
if cost > maxcost then
  return {0, 8, 0, 0, f(p), dc, redis.call('ZCARD', KEYS[2]), 0, f(now)}
end

local violated, retry = 0, 0
if dc + 1 > quota then
  violated = bit.bor(violated, 2)
  retry = math.max(retry, (day + 1) * DAY + offset - now)
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', f(now))
local n = redis.call('ZCARD', KEYS[2])
if n >= maxconc then
  violated = bit.bor(violated, 4)
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  local earliest = tonumber(first[2]) or (now + 1000000)
  retry = math.max(retry, math.min(earliest - now, 1000000))
end
local path = 0
if p >= cost then
  path = 1
elseif borrow and q >= cost and g >= cost then
  path = 2
else
  violated = bit.bor(violated, 1)
  local w = wait(p, cost, rate)
  if borrow then w = math.min(w, math.max(wait(q, cost, crate), wait(g, cost, grate))) end
  retry = math.max(retry, w)
end
local shadow = bit.band(violated, shadowmask)
local enforced = bit.band(violated, bit.bnot(shadowmask))
if enforced ~= 0 then
  return {0, enforced, shadow, f(retry), f(p), dc, n, 0, f(now)}
end
dc = dc + 1
if job ~= '' then
  redis.call('ZADD', KEYS[2], f(now + ttl), job)
  n = redis.call('ZCARD', KEYS[2])
  redis.call('PEXPIRE', KEYS[2], f(ceildiv(ttl, 1000) + 1000))
end
local borrowed = 0
if path == 1 then
  p = p - cost
  if borrow then
    q = math.max(q - cost, -cburst)
    g = math.max(g - cost, -gburst)
  end
elseif path == 2 then
  q = q - cost
  g = g - cost
  borrowed = cost
end
save()
return {1, 0, shadow, 0, f(p), dc, n, f(borrowed), f(now)}
