-- The limit script's own start (LimitScript.SOURCE puts it before the files of functions, limit-call.lua and
-- after): reads the call's time from ARGV and answers the commonest call, one token bucket or GCRA layer whose
-- state, if any, was written under the same interval, inline, before any function is made: a script's call runs
-- the whole chunk and makes each function it passes anew, which would cost this call more than its own work
-- (measured: 6-7 us a call inline, 11 us through functions). Anything rarer (a changed interval, times beyond
-- 2^53 ns, other kinds, other operations) goes on to the functions, which decide it the same way (gcra.decide).
-- Keys and arguments: limit-call.lua's protocol. The queue library does not hold this file.

local call = redis.call
local fmod = math.fmod
local max = math.max
local sub = string.sub
local find = string.find
local format = string.format
local match = string.match
local tonumber = tonumber

local TWO53 = 9007199254740992
local SEC = 1000000000
local MS = 1000000
local BIAS = 10000000000 -- seconds added to stored times (see the header)

local nowSec, nowNs, slackMs
if ARGV[2] == '' then
  local time = call('TIME')
  nowSec = tonumber(time[1])
  nowNs = tonumber(time[2]) * 1000
  -- Redis counts expiry from its own millisecond clock, which may lag TIME: one more ms keeps keys alive.
  slackMs = 1
else
  -- "<seconds> <nanoseconds>", floored: 1.5 s before the epoch is "-2 500000000"
  local seconds, nanos = match(ARGV[2], '^(-?%d+) (%d+)$')
  if not seconds then
    return redis.error_reply('ERR sluice limit script: time must be "<seconds> <nanoseconds>" or empty, was "'
      .. tostring(ARGV[2]) .. '"')
  end
  nowSec, nowNs = tonumber(seconds), tonumber(nanos)
  slackMs = 3600000
end

-- The commonest call, with the same arithmetic as gcra.decide.
if ARGV[4] == '1' and ARGV[5] == 'gcra' and ARGV[1] == 'acquire' then
  local key, intervalString = KEYS[1], ARGV[6]
  local stored = call('GET', key)
  local d = 0 -- how far the bucket's full time (tat) lies ahead of now, when it does
  if stored then
    d = (tonumber(sub(stored, 1, 11)) - BIAS - nowSec) * SEC + (tonumber(sub(stored, 12, 20)) - nowNs)
    if d <= 0 then
      d = 0
    elseif sub(stored, 22) ~= intervalString then
      d = nil
    end
  end
  if d then
    local interval = tonumber(intervalString)
    local tolerance = tonumber(ARGV[7]) * interval
    local next = d + tonumber(ARGV[3]) * interval
    if next < TWO53 then
      -- now + delta (0 <= delta < 2^53) as stored
      local function stamp(delta)
        local r = fmod(delta, SEC)
        local s, n = nowSec + (delta - r) / SEC, nowNs + r
        if n >= SEC then
          s, n = s + 1, n - SEC
        end
        return format('%011d%09d', s + BIAS, n)
      end
      if next > tolerance then
        local room, remaining = tolerance - d, 0
        if room > 0 then
          remaining = (room - fmod(room, interval)) / interval
        end
        return { nowSec, nowNs, 0, remaining, next - tolerance, d, '' }
      end
      local tat = stamp(next)
      -- expires when full again: ms from Redis's millisecond clock (now rounded down), rounded up
      local r = fmod(next, MS)
      local ms, rest = (next - r) / MS, r + fmod(nowNs, MS)
      if rest > MS then
        ms = ms + 2
      elseif rest > 0 then
        ms = ms + 1
      end
      call('SET', key, tat .. '|' .. intervalString, 'PX', max(ms, 1) + slackMs)
      local left = tolerance - next
      return { nowSec, nowNs, 1, (left - fmod(left, interval)) / interval, 0, next, '' }
    end
  end
end

-- the time, for the functions (limitClockAt) once they are made: their own locals take these names
local startSec, startNs = nowSec, nowNs
