-- fairpix admission: token-bucket arithmetic shared by admission.lua and pool-lease.lua; the
-- loader (RedisAdmission) puts it in front of each script, so each EVAL stays self-contained.
-- The Lua twin of com.fairpix.core.admission.TokenBucket (its static functions, line by line;
-- TokenBucketLuaTwinIT holds them to the same answers); units: nanotokens, millitokens/s, µs.
-- Lua numbers are doubles: integer division is corrected by hand.

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
-- The time in µs: the caller's (tests move it by hand) or, when it passes '', Redis TIME.
local function micros(arg)
  if arg ~= '' then return tonumber(arg) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

