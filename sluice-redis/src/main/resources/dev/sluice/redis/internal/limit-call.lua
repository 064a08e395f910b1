-- Sluice's rate-limit script: decides every layer of one request, all or nothing, in one atomic call.
--
-- acquire: KEYS = state key and auxiliary key of each layer; ARGV = 'acquire', time, permits, layer count,
--   then kind, a, b, c per layer. Replies {now's seconds, now's nanoseconds, then per layer: allowed (1/0),
--   remaining, retry-after ns, reset-at as ns from now, lease member}: integers, not formatted times, since
--   building strings is a good part of a call's cost. Each layer is decided in order, seeing what earlier
--   layers of the same call took; if one denies, the later ones are only asked and nothing at all is written.
-- peek: as acquire, deciding every layer as acquire would without taking or writing anything (a state
--   written under another policy may be re-expressed, as by any call). Replies as acquire, lease members empty.
-- release: KEYS = a concurrency layer's two keys; ARGV = 'release', time, lease member. Replies 1 if this
--   call returned the lease's permits, 0 if it had been released or had expired.
-- refund: KEYS and ARGV as an acquire of one layer of any kind but leases, with 'refund' first: gives the
--   permits back as the in-memory algorithm's refund() does, never beyond the full limit. Replies 1.
-- reset: KEYS = a layer's two keys; ARGV = 'reset', time. Deletes the layer's state: the key is back at its
--   full limit. Replies 1.
--
-- Time. Epoch nanoseconds (about 1.8e18) do not fit the 53-bit integers of Lua's doubles, so 'now' is kept
-- as whole seconds and nanoseconds (nowSec, nowNs), and every other time as a delta from now, exact while
-- it stays below 2^53 ns (104 days); the engine keeps every policy span at most 2^52 ns. Stored times are
-- 20-digit strings, seconds biased by 10^10 so that times before 1970 (test clocks) stay positive and the
-- strings sort as the times compare, read back into deltas with since().
-- Times and retry-afters that can pass 2^53 are replied as decimal strings; divisions use fmod, which is
-- exact, and products that can pass 2^53 go through mulDiv (bit by bit) or, on a policy change, bignum.
--
-- Files: the script is cut by concern into files that LimitScript joins, in its order, into one chunk (each uses
-- the locals of the files before it): this one (the protocol, the time, the commonest call answered at once),
-- limit-time.lua (arithmetic on times), limit-gcra.lua (token bucket, GCRA), limit-fixed.lua (fixed window),
-- limit-counter.lua (sliding counter), limit-log.lua (sliding log), limit-leases.lua (concurrency) and
-- limit-entry.lua (release, reset, refund, and acquire or peek of any layers). Each kind's file says its state.
-- Keys: a layer's state key and auxiliary key. A missing key always means "full limit". Each write expires the
-- keys when the state is back at its full limit; with a test clock (time given in ARGV) an hour of slack is
-- added. The window or interval stored with a state lets a changed policy re-express it first, as the in-memory
-- algorithm's adopt() does.
--
-- The files define functions only: limitEntry(KEYS, ARGV) makes a call (limit-entry.lua). Loaded with the queue
-- library as Redis functions, they are made once and the queue calls one layer's algorithm directly
-- (limitDecide). Cost as a script: every call runs the whole chunk, and each function it defines is a closure made
-- anew, so the script (LimitScript.SOURCE) answers a call of one gcra layer (the commonest, limitCommonest) right
-- after this file, before the others define theirs; and each kind is built only when a call uses it.

-- set by limitClockAt at each call: a library of Redis functions may use neither Redis's API nor the standard
-- library while it loads
local call, fmod, max, sub, find, format, match, tonumber

local TWO53 = 9007199254740992
local SEC = 1000000000
local MS = 1000000
local BIAS = 10000000000 -- seconds added to stored times (see the header)

-- The call's time, the slack its key expiries get, and nowMod's results at that time (limit-fixed.lua).
local nowSec, nowNs, slackMs
local nowMods = {}

-- Sets the call's time to seconds and nanoseconds (0 <= nanoseconds < 1e9) of a clock of its caller
-- (testClock: a test's, with an hour of slack on expiries), or to Redis's clock when seconds is nil.
local function limitClockAt(seconds, nanos, testClock)
  call, fmod, max, sub, find, format, match = redis.call, math.fmod, math.max, string.sub, string.find, string.format,
    string.match
  tonumber = _G.tonumber
  nowMods = {}
  if seconds == nil then
    local time = call('TIME')
    nowSec = tonumber(time[1])
    nowNs = tonumber(time[2]) * 1000
    -- Redis counts expiry from its own millisecond clock, which may lag TIME: one more ms keeps keys alive.
    slackMs = 1
  else
    nowSec, nowNs = seconds, nanos
    slackMs = testClock and 3600000 or 1
  end
end

-- Sets the call's time from the script's ARGV[2]: empty (Redis's clock) or "<seconds> <nanoseconds>", floored
-- (1.5 s before the epoch is "-2 500000000"), a test's clock. Returns an error reply for any other form, else nil.
local function limitClock(time)
  if time == '' then
    return limitClockAt(nil)
  end
  local seconds, nanos = string.match(time, '^(-?%d+) (%d+)$')
  if not seconds then
    return redis.error_reply('ERR sluice limit script: time must be "<seconds> <nanoseconds>" or empty, was "'
      .. tostring(time) .. '"')
  end
  limitClockAt(_G.tonumber(seconds), _G.tonumber(nanos), true)
end

-- The commonest call by far: one token bucket or GCRA layer whose state, if any, was written under the same
-- interval. Run as a script, Redis runs the whole chunk on every call and makes each function it defines anew,
-- so the script answers this case first, before the helpers below exist, with the same arithmetic as
-- gcra.decide. Returns the reply, or nil for anything rarer (a changed interval, times beyond 2^53 ns), which
-- the general code decides the same way.
local function limitCommonest(KEYS, ARGV)
  if ARGV[4] ~= '1' or ARGV[5] ~= 'gcra' or ARGV[1] ~= 'acquire' then
    return nil
  end
  local key, intervalString = KEYS[1], ARGV[6]
  local stored = call('GET', key)
  local d = 0 -- how far the bucket's full time (tat) lies ahead of now, when it does
  if stored then
    d = (tonumber(sub(stored, 1, 11)) - BIAS - nowSec) * SEC + (tonumber(sub(stored, 12, 20)) - nowNs)
    if d <= 0 then
      d = 0
    elseif sub(stored, 22) ~= intervalString then
      return nil
    end
  end
  local interval = tonumber(intervalString)
  local tolerance = tonumber(ARGV[7]) * interval
  local next = d + tonumber(ARGV[3]) * interval
  if next >= TWO53 then
    return nil
  end
  if next > tolerance then
    local room, remaining = tolerance - d, 0
    if room > 0 then
      remaining = (room - fmod(room, interval)) / interval
    end
    return { nowSec, nowNs, 0, remaining, next - tolerance, d, '' }
  end
  -- the full time, now + next, as stored
  local r = fmod(next, SEC)
  local s, n = nowSec + (next - r) / SEC, nowNs + r
  if n >= SEC then
    s, n = s + 1, n - SEC
  end
  local tat = format('%011d%09d', s + BIAS, n)
  -- expires when full again: ms from Redis's millisecond clock (now rounded down), rounded up
  r = fmod(next, MS)
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
