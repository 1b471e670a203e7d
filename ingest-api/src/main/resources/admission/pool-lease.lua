-- fairpix admission: one ingest node leases tokens of a pool's borrowing bucket, and settles what
-- its guaranteed admissions took from the pool since its last lease. See docs/admission.md
-- ("The pool lease"). Same fixed-point units as admission.lua (nanotokens, millitokens/s, µs), and
-- numbers go to Redis as numbers (exact below 2^53, see admission.lua).
--
-- KEYS[1] pool hash fp:{pool:<pool>}:adm (g, gt: the bucket, refilled at the pool's capacity C)
-- ARGV: 1 now µs or '' (Redis TIME), 2 rate, 3 burst, 4 settle (nanotokens the node's guaranteed
--       admissions took: debited unconditionally, down to -burst), 5 want (nanotokens asked for)
-- Returns {granted, tokens left in the bucket, now}

-- micros, idiv, ceildiv, refill, untilfull: buckets.lua, put in front of this script by the loader.

local now = micros(ARGV[1])
local rate, burst = tonumber(ARGV[2]), tonumber(ARGV[3])
local settle, want = tonumber(ARGV[4]), tonumber(ARGV[5])

local h = redis.call('HMGET', KEYS[1], 'g', 'gt')
local g = refill(tonumber(h[1]) or burst, tonumber(h[2]) or now, now, rate, burst)
g = math.max(g - settle, -burst)
local granted = 0
if want > 0 and g > 0 then granted = math.min(want, g) end
g = g - granted

if g >= burst then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'g', g, 'gt', now)
  redis.call('PEXPIRE', KEYS[1], ceildiv(untilfull(g, rate, burst), 1000) + 1000)
end
return {granted, g, now}
