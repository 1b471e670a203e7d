-- fairpix admission: one decision (or one forced charge) for one tenant, atomically, in one round trip.
-- Mirrors com.fairpix.ingest.admission.internal.LocalAdmission; see docs/admission.md.
-- Units: nanotokens, millitokens/s, microseconds. Lua numbers are doubles: every value here is an
-- integer below 2^53 and integer division is corrected by hand. Numbers go to Redis as numbers,
-- never through tostring or '..' (Lua's %.14g would round anything above 1e14): redis.call
-- writes them with %.17g and a reply turns them into integers, both exact for these values, and
-- both cheaper than string.format (a third of this script's time went to it).
--
-- Both keys carry the tenant's hash tag, so a decision runs on one Redis Cluster slot. The pool's
-- borrowing bucket is not here: the calling node leases chunks of it (pool-lease.lua) and passes
-- what it holds for this decision (ARGV[8]).
--
-- KEYS[1] tenant state fp:{t}:adm-state: six doubles packed with struct.pack (p, pt: guaranteed bucket;
--         q, qt: ceiling bucket, qt = -1 when never used; d, dc: quota day, count). One GET and one
--         SET PX instead of HMGET, HSET and PEXPIRE: a packed string costs Redis half what the
--         hash did (INFO commandstats, docs/admission.md).
-- KEYS[2] tenant zset fp:{t}:leases (job id -> lease expiry, µs)
-- KEYS[3] the tenant's state as releases before 2026-12 kept it (a hash fp:{t}:adm), read when
--         KEYS[1] is missing and deleted when KEYS[1] is first written, so an upgrade keeps
--         today's quota counts
-- KEYS[4] fp:{t}:true-up: nanotokens the tenant owes for jobs that cost more CPU than they were
--         charged (workers add to it, TrueUp); a decision or charge takes it out whole and
--         debits the guaranteed bucket with it, as a forced charge
-- ARGV: 1 now µs or '' (use Redis TIME; tests pass a time), 2 op ('decide'|'charge'|'peek': the state
--       now, charging and writing nothing), 3 cost,
--       4 rate, 5 burst, 6 ceil rate (0 = no borrowing), 7 ceil burst,
--       8 pool tokens the node reserved for this decision (the cost, or 0 when its lease is short),
--       9 µs until the pool could lend the cost (the node's estimate; used when ARGV[8] < cost),
--       10 daily quota, 11 day offset µs, 12 max concurrent, 13 lease ttl µs, 14 job id, 15 shadow mask
-- Returns {allowed, violated mask, shadow mask, retry µs, p, day count, leases, borrowed, now,
--          path (0 none, 1 the guarantee, 2 borrowed)}

-- micros, idiv, ceildiv, refill, wait, untilfull: buckets.lua, put in front of this script by the loader.

local now = micros(ARGV[1])
local op = ARGV[2]
local cost = tonumber(ARGV[3])
local rate, burst = tonumber(ARGV[4]), tonumber(ARGV[5])
local crate, cburst = tonumber(ARGV[6]), tonumber(ARGV[7])
local reserved, gwait = tonumber(ARGV[8]), tonumber(ARGV[9])
local quota, offset = tonumber(ARGV[10]), tonumber(ARGV[11])
local maxconc, ttl = tonumber(ARGV[12]), tonumber(ARGV[13])
local job, shadowmask = ARGV[14], tonumber(ARGV[15])
local DAY = 86400000000
local DEBT_FLOOR = -1000000000000000
local borrow = crate > 0 and cburst > 0

local p, pt, q, qt, d, dc = burst, now, cburst, -1, -1, 0
local migrated = false
local packed = redis.call('GET', KEYS[1])
if packed then
  p, pt, q, qt, d, dc = struct.unpack('dddddd', packed)
elseif KEYS[3] then
  -- Upgrade from the hash layout (fp:{t}:adm): carry today's buckets and quota count over once.
  local h = redis.call('HMGET', KEYS[3], 'p', 'pt', 'q', 'qt', 'd', 'dc')
  if h[1] then
    p, pt, d, dc = tonumber(h[1]), tonumber(h[2]) or now, tonumber(h[5]) or -1, tonumber(h[6]) or 0
    if h[3] then q, qt = tonumber(h[3]), tonumber(h[4]) or now end
    migrated = true -- deleted when save() writes KEYS[1]; a refusal writes nothing, so it reads the hash again
  end
end
p = refill(p, pt, now, rate, burst)
if borrow then
  if qt < 0 then q, qt = cburst, now end
  q = refill(q, qt, now, crate, cburst)
end
local day = idiv(now - offset, DAY)
if d ~= day then dc = 0 end
-- What the tenant's finished jobs cost past their charge (TrueUp): paid before this decision.
local owed = 0
if op ~= 'peek' and KEYS[4] then
  owed = tonumber(redis.call('GET', KEYS[4]) or '0') or 0
  if owed > 0 then
    redis.call('DEL', KEYS[4])
    p = math.max(p - owed, DEBT_FLOOR)
    if borrow then q = math.max(q - owed, -cburst) end
  end
end

-- Writes the tenant's state back; the hash expires once every bucket would be full and the
-- quota day is over, so idle tenants cost no memory.
local function save()
  local keep = untilfull(p, rate, burst)
  if borrow then keep = math.max(keep, untilfull(q, crate, cburst)) end
  if dc > 0 then keep = math.max(keep, (day + 1) * DAY + offset - now) end
  if migrated then redis.call('DEL', KEYS[3]) end
  if keep <= 0 then
    redis.call('DEL', KEYS[1])
  else
    if borrow then qt = now end
    redis.call('SET', KEYS[1], struct.pack('dddddd', p, now, q, qt, day, dc), 'PX', ceildiv(keep, 1000) + 1000)
  end
end

if op == 'peek' then
  return {1, 0, 0, 0, p, dc, redis.call('ZCOUNT', KEYS[2], string.format('(%.0f', now), '+inf'), 0, now, 0}
end

if op == 'charge' then
  p = math.max(p - cost, DEBT_FLOOR)
  if borrow then q = math.max(q - cost, -cburst) end
  save()
  return {1, 0, 0, 0, p, dc, 0, 0, now, 1}
end

local maxcost = burst
if borrow then maxcost = math.max(burst, cburst) end
if cost > maxcost then
  if owed > 0 then save() end
  return {0, 8, 0, 0, p, dc, redis.call('ZCARD', KEYS[2]), 0, now, 0}
end

local violated, retry = 0, 0
if dc + 1 > quota then
  violated = bit.bor(violated, 2)
  retry = math.max(retry, (day + 1) * DAY + offset - now)
end
-- Expired leases (of workers that died) go first: the count is reported (RateLimit's concurrency
-- remaining), so it must be the live leases, and the set stays bounded.
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
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
elseif borrow and q >= cost and reserved >= cost then
  path = 2
else
  violated = bit.bor(violated, 1)
  local w = wait(p, cost, rate)
  if borrow then
    local gw = 0
    if reserved < cost then gw = gwait end
    w = math.min(w, math.max(wait(q, cost, crate), gw))
  end
  retry = math.max(retry, w)
end
local shadow = bit.band(violated, shadowmask)
local enforced = bit.band(violated, bit.bnot(shadowmask))
if enforced ~= 0 then
  -- A refusal writes nothing, unless it took a debt out (that must not be lost).
  if owed > 0 then save() end
  return {0, enforced, shadow, retry, p, dc, n, 0, now, 0}
end
dc = dc + 1
if job ~= '' then
  n = n + redis.call('ZADD', KEYS[2], now + ttl, job)
  redis.call('PEXPIRE', KEYS[2], ceildiv(ttl, 1000) + 1000)
end
local borrowed = 0
if path == 1 then
  p = p - cost
  if borrow then q = math.max(q - cost, -cburst) end
elseif path == 2 then
  q = q - cost
  borrowed = cost
end
save()
return {1, 0, shadow, 0, p, dc, n, borrowed, now, path}
