-- Adaptive rates: a queue's or a group's rate whose stored form ends in
-- ';A,<ceiling>,<floor>,<start>,<cut>,<climb>,<climb in ns>' (jobs per second, the climb in us; see RateText.java)
-- is moved by the rule of queue-adaptive-rule.lua from what attempts tell when they end, as the in-memory engine's
-- AdaptiveSignals does: every ending of an attempt that still owned its job is a
-- report to the queue's adaptive rate and to its group's (one attempt started, and whether it succeeded or was
-- refused), a completion also its processing time, and a refusal (rate-limited 'r', overloaded 'o', a timed-out
-- failure) a loss to the nearest adaptive rate of its scope: for GROUP the group's, else the queue's; for QUEUE the
-- queue's, else the group's. A claim enforces the rate's policy scaled to the current rate (adaptive.scaled).
-- Keys: B:ad:<rate scope> (a hash: the rule's state, 's', the rate over the ceiling, and 'last', its last change;
-- expires a day after its last signal), B:m ('ad': 1 once the queue or a group has had an adaptive rate).
-- Events: 'rate-changed' {scope ('QUEUE' or 'GROUP'), group name or false, the change as 'last' holds it (text:
-- MessagePack's readers here cut floats)}.
-- Cost: per call of a queue with adaptive rates, an HGETALL and an HSET per rate heard; a rule step per signal.

do -- this file's own locals end with it (see Files in queue-state.lua)
local EPISODE = 250000 -- us: a congestion episode, ControlSettings.DEFAULT_EPISODE
local APP_LIMITED = 0.8
local LATENCY_TOLERANCE = 3
local KEEP = 86400000 -- ms: how long a rate's state outlives its last signal
local FIELDS = { 'rate', 'lastGood', 'cutTo', 'cutAt', 'episodeEnds', 'quietUntil', 'grown', 'windowStart',
  'windowStarted', 'windowSucceeded', 'windowRefused', 'delivered', 'shortLatency', 'baselineLatency', 'latencyAt',
  'latencies', 'told', 'held', 'cuts' }

-- The settings of a stored rate, or nil if it is not adaptive.
local function settingsOf(rate)
  local ceiling, floor, start, cut, climb = string.match(rate or '', ';A,([^,]+),([^,]+),([^,]+),([^,]+),([^,]+),')
  if ceiling == nil then
    return nil
  end
  return { floor = tonumber(floor), ceiling = tonumber(ceiling), start = tonumber(start), cut = tonumber(cut),
    episode = EPISODE, climb = tonumber(climb), appLimited = APP_LIMITED, latencyTolerance = LATENCY_TOLERANCE }
end

-- Whether the queue or one of its groups has had an adaptive rate (the finish then reads each ending's record).
function adaptive.on()
  return mnum('ad', 0) == 1
end

-- The share of its ceiling rate (as stored) runs at in scope, as AdaptiveRate.scaledTo takes it; nil if it is not
-- adaptive.
function adaptive.share(scope, rate)
  local settings = settingsOf(rate)
  if settings == nil then
    return nil
  end
  return math.min(1, tonumber(call('HGET', B .. ':ad:' .. scope, 's') or '') or settings.start / settings.ceiling)
end

-- This call's rates heard: scope -> { settings, state, changed, scopeName, group, last }.
local heard = {}

-- Starts a call's hearing: nothing heard yet (a call that failed half way left nothing to write).
function adaptive.begin()
  heard = {}
end

local function rateOf(scope, rate, scopeName, group)
  local r = heard[scope]
  if r == nil then
    local settings = settingsOf(rate)
    if settings == nil then
      return nil
    end
    local flat = call('HGETALL', B .. ':ad:' .. scope)
    local state
    if #flat == 0 then
      state = adaptive.start(settings, now)
    else
      state = {}
      for i = 1, #flat, 2 do
        local v = flat[i + 1]
        if v == '' then
          state[flat[i]] = false -- no cut yet, nothing held
        else
          state[flat[i]] = tonumber(v) or v
        end
      end
    end
    r = { settings = settings, state = state, scopeName = scopeName, group = group }
    heard[scope] = r
  end
  return r
end

local function tell(r, signal)
  local state, change = adaptive.next(r.settings, r.state, signal, now)
  r.state, r.changed = state, true
  if change then
    -- 'reason|signal|value|from|to|at (us)': as the statistics and the event tell it (RedisStats.change reads it)
    r.last = table.concat({ change.reason, change.signal, format('%.17g', change.value), format('%.17g', change.from),
      format('%.17g', change.to), format('%d', change.at) }, '|')
    emit('rate-changed', nil, nil, r.scopeName, r.group, r.last)
    r.told = r.told or {}
    r.told[change.reason] = (r.told[change.reason] or 0) + 1
  end
end

-- The adaptive rates of group gid and of the queue, as this call holds them (nil: not adaptive).
local function ratesOf(gid)
  local _, _, groupRate, groupScope = limitsOf(gid)
  local g = rateOf(groupScope, groupRate, 'GROUP', gid ~= 'u' and sub(gid, 2) or false)
  local q = rateOf('q:' .. int(mnum('rgq', 0)), m('rate'), 'QUEUE', false)
  return g, q
end

-- The nearest adaptive rate of scope: for GROUP the group's, else the queue's; for QUEUE the other way round.
local function nearest(g, q, scope)
  if scope == 'GROUP' then
    return g or q
  end
  return q or g
end

-- Hears the ending of job (which its token still owned) of kind how ('c', 'f', 'r', 'o'; others tell nothing);
-- outcome is a failure's ('FAILED' or 'TIMED_OUT'), scope a refusal's ('GROUP' or 'QUEUE'), after its retry-after in
-- us.
function adaptive.ended(job, how, outcome, scope, after)
  if how ~= 'c' and how ~= 'f' and how ~= 'r' and how ~= 'o' then
    return
  end
  local g, q = ratesOf(groupName(job))
  if g == nil and q == nil then
    return
  end
  local started = job[R_STARTED]
  local timedOut = how == 'f' and outcome == 'TIMED_OUT'
  local refused = how == 'r' or how == 'o' or timedOut
  local report = { kind = 'report', started = 1, succeeded = how == 'c' and 1 or 0, refused = refused and 1 or 0,
    stale = false }
  for _, r in ipairs({ g or false, q or false }) do
    if r then
      tell(r, report)
      if how == 'c' then
        tell(r, { kind = 'latency', us = math.max(0, now - started) })
      end
    end
  end
  if refused then
    tell(nearest(g, q, timedOut and 'GROUP' or scope), { kind = 'loss',
      lossKind = how == 'r' and 'rate-limited' or 'overloaded', sentAt = started, retryAfter = after or 0 })
  end
end

local function text(v)
  if v == false or v == nil then
    return ''
  end
  if type(v) == 'number' then
    return format('%.17g', v)
  end
  return v
end

-- Writes the states this call changed, and forgets them.
function adaptive.save()
  for scope, r in pairs(heard) do
    if r.changed then
      local key = B .. ':ad:' .. scope
      local args = { 's', text(r.state.rate / r.settings.ceiling), 'last', text(r.last or r.state.last) }
      for _, field in ipairs(FIELDS) do
        args[#args + 1] = field
        args[#args + 1] = text(r.state[field])
      end
      call('HSET', key, spread(args))
      for reason, n in pairs(r.told or {}) do
        call('HINCRBY', key, 'n:' .. reason, n)
      end
      call('PEXPIRE', key, KEEP)
    end
  end
  heard = {}
end

-- The reasons of a change, as RateChange.Reason names them: the hash of a rate counts each's changes in 'n:<reason>'.
adaptive.REASONS = { 'CUT', 'GRADIENT', 'QUOTA', 'CLIMB', 'HELD', 'RESUMED' }

-- For the statistics: rate (stored form; '' or nil for none) of scope as stored, its current value in jobs per
-- second as text, its cuts, its last change as 'reason|signal|value|from|to|at' (false when not adaptive, or
-- none yet), and the changes told by reason, as 'reason|count|reason|count...' ('' for none).
function adaptive.describe(scope, rate)
  if rate == nil or rate == '' then
    return false, false, false, false, false
  end
  local settings = settingsOf(rate)
  if settings == nil then
    return rate, false, false, false, false
  end
  local fields = { 's', 'cuts', 'last' }
  for _, reason in ipairs(adaptive.REASONS) do
    fields[#fields + 1] = 'n:' .. reason
  end
  local stored = call('HMGET', B .. ':ad:' .. scope, spread(fields))
  local told = {}
  for i, reason in ipairs(adaptive.REASONS) do
    if stored[3 + i] then
      told[#told + 1] = reason .. '|' .. stored[3 + i]
    end
  end
  local share = tonumber(stored[1] or '') or settings.start / settings.ceiling
  return rate, format('%.17g', share * settings.ceiling), tonumber(stored[2] or '0'), stored[3] or false,
    table.concat(told, '|')
end

-- adapt: a signal outside an ending. ARGV: the group ('u' or 'g<name>'), the scope ('GROUP' or 'QUEUE'), the kind,
-- then its values: 'quota' (JobContext.quota; to the nearest adaptive rate of the scope): the calls remaining, the
-- time until the quota resets (us); 'gauge' (a gauge the queue follows; to the queue's adaptive rate): its name, value
-- and threshold; 'stale': the name of a gauge that cannot be read. Replies 1 if an adaptive rate heard it, else 0.
COMMANDS.adapt = function()
  adaptive.begin()
  local g, q = ratesOf(ARG[3])
  local kind = ARG[5]
  local target = q -- a gauge is the whole queue's
  if kind == 'quota' then
    target = nearest(g, q, ARG[4])
  end
  if target == nil then
    return 0
  end
  if kind == 'quota' then
    tell(target, { kind = 'quota', remaining = tonumber(ARG[6]), reset = tonumber(ARG[7]) })
  elseif kind == 'gauge' then
    tell(target, { kind = 'gauge', name = ARG[6], value = tonumber(ARG[7]), threshold = tonumber(ARG[8]) })
  else
    tell(target, { kind = 'report', started = 0, succeeded = 0, refused = 0, stale = ARG[6] })
  end
  adaptive.save()
  return 1
end
end
