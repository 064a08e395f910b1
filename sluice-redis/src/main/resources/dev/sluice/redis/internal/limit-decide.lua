-- The queue library's way into the limiter's algorithms: the call's time set (limitClockAt), one layer's state
-- read (limitView) and decided on (limitDecide) at that time, for a queue's or a group's rate. The limiters'
-- script does not hold this file.
-- Keys: the layer's two. Cost: the layer's load, decide and, when permits are taken, save; nothing else.

-- Sets the call's time to seconds and nanoseconds (0 <= nanoseconds < 1e9) of Redis's clock (TIME) or, if
-- testClock, of a test's, whose key expiries get an hour of slack.
local function limitClockAt(seconds, nanos, testClock)
  call, fmod, max, sub, find, format, match = redis.call, math.fmod, math.max, string.sub, string.find, string.format,
    string.match
  tonumber = _G.tonumber
  nowMods = {}
  nowSec, nowNs = seconds, nanos
  -- Redis counts expiry from its own millisecond clock, which may lag TIME: one more ms keeps keys alive.
  slackMs = testClock and 3600000 or 1
end

-- The state of the layer of kind kindName (not leases) with state keys key and aux and policy aString ('a' of the
-- protocol, as text), read at the time set by limitClockAt: a view for limitDecide.
local function limitView(kindName, key, aux, aString)
  local kind = kindNamed(kindName)
  local view = kind.load(key, aux, tonumber(aString), aString)
  view.kind = kind
  return view
end

-- Whether permits may be taken now from the layer of a view (limitView) under limit; takes them if take and they
-- may. Returns allowed (1/0), remaining, and the retry-after in ns (a decimal string past 2^53), as an acquire's or
-- a peek's reply of one layer. A view may be asked any number of times until permits are taken from it; then its
-- layer must be read again.
local function limitDecide(view, limit, permits, take)
  local allowed, remaining, retry = view.kind.decide(view, limit, permits, take, '')
  if allowed == 1 and view.dirty then
    view.kind.save(view)
  end
  return allowed, remaining, retry
end
