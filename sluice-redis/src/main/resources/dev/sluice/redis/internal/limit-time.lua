-- Times: sums and differences of epoch times kept as (seconds, nanoseconds) pairs and 20-digit stored strings
-- (see limit-call.lua), floors, and key expiries in milliseconds. What every kind of layer computes with.
-- Keys: none. Cost: defining these few closures, on every call that gets past the commonest one.

-- (s, n) + delta, normalized to 0 <= n < 1e9; |delta| <= 2^53.
local function pairAdd(s, n, delta)
  local r = fmod(delta, SEC)
  s = s + (delta - r) / SEC
  n = n + r
  if n >= SEC then
    return s + 1, n - SEC
  elseif n < 0 then
    return s - 1, n + SEC
  end
  return s, n
end

local function timeString(s, n)
  return format('%011d%09d', s + BIAS, n)
end

-- The 20-digit string of the time now + delta.
local function at(delta)
  return timeString(pairAdd(nowSec, nowNs, delta))
end

-- A stored 20-digit time (the start of str) minus now, in ns; exact below 2^53, rightly ordered beyond.
local function since(str)
  return (tonumber(sub(str, 1, 11)) - BIAS - nowSec) * SEC + (tonumber(sub(str, 12, 20)) - nowNs)
end

-- floor(x / y) for integers x >= 0, y > 0.
local function div(x, y)
  return (x - fmod(x, y)) / y
end

-- Milliseconds from Redis's millisecond clock (now rounded down) until now + delta, rounded up.
local function ttl(delta)
  local r = fmod(delta, MS)
  local ms = (delta - r) / MS
  local rest = r + fmod(nowNs, MS)
  if rest > MS then
    ms = ms + 2
  elseif rest > 0 then
    ms = ms + 1
  end
  return max(ms, 1) + slackMs
end

------------------------------------------------------------------------------------------------------------
-- Each kind has load, decide and save:
-- load(stateKey, auxKey, a, aString) reads a view of the state, re-expressed under the call's policy;
-- decide(view, limit, permits, commit, leaseId) returns allowed (1/0), remaining, retry-after, reset-at and
-- lease member, and when it allows and commit is true, records the take in the view;
-- save(view) writes a view that took permits.
------------------------------------------------------------------------------------------------------------
