-- The adaptive rate's rule, as sluice-core's RateControl states it (the Java is the specification; the differential
-- test AdaptiveRuleDifferentialTest holds this copy to it): the next state of a controlled rate from its settings, its
-- state, a signal and now. Times in microseconds (the queue's clock), rates in jobs per second. The queue applies it
-- in queue-adaptive.lua.
-- Keys: none. Cost: a few arithmetic operations per signal, no command.
--
-- settings: floor, ceiling, start, cut, episode, climb, appLimited, latencyTolerance.
-- state: rate, lastGood, cutTo, cutAt (false: no cut yet), episodeEnds, quietUntil, grown, windowStart, windowStarted,
--   windowSucceeded, windowRefused, delivered, shortLatency, baselineLatency, latencyAt, latencies, told, held (false:
--   none), cuts.
-- signal: {kind = 'loss', lossKind = 'rate-limited' | 'overloaded', sentAt, retryAfter}, {kind = 'report', started,
--   succeeded, refused, stale (false: none)}, {kind = 'latency', us}, {kind = 'gauge', name, value, threshold},
--   {kind = 'quota', remaining, reset}.
-- change (or nil): {reason = 'CUT' | 'GRADIENT' | 'QUOTA' | 'CLIMB' | 'HELD' | 'RESUMED', signal, value, from, to, at}.

local adaptive = {}
do
local WINDOW = 100000 -- us: the reports of every process are added up over windows of a tenth of a second
local LATENCY_WARM_UP = 20
local TOLD_STEP = 1.1
local SHORT_WEIGHT = 0.2
local DELIVERED_WEIGHT = 0.3
local BASELINE_DOUBLING = 60e6 -- us
local GROWTH_OVER_DELIVERED = 2
local DEEPEST_CUT = 0.5 -- a cut leaves at least this share of the rate

local function copy(state)
  local next = {}
  for field, value in pairs(state) do
    next[field] = value
  end
  return next
end

local function clamp(settings, rate)
  return math.max(settings.floor, math.min(settings.ceiling, rate))
end

function adaptive.start(settings, now)
  return {
    rate = settings.start, lastGood = settings.start, cutTo = settings.start * settings.cut, cutAt = false,
    episodeEnds = now, quietUntil = now, grown = settings.climb, windowStart = now, windowStarted = 0,
    windowSucceeded = 0, windowRefused = 0, delivered = 0, shortLatency = 0, baselineLatency = 0, latencyAt = now,
    latencies = 0, told = settings.start, held = false, cuts = 0
  }
end

-- The rate the climb reaches after grown us of utilised time past a cut.
function adaptive.climbed(settings, state, grown)
  local k = settings.climb
  local x = (grown - k) / k
  local rise = state.lastGood - state.cutTo
  if x <= 1 then
    return state.lastGood + rise * x * x * x
  end
  return (state.lastGood + rise) * 2 ^ (1.5 * (x - 1))
end

local function inEpisode(state, now)
  return now < state.episodeEnds
end

local function cut(settings, state, factor, good, episodeEnds, now, reason, signal, value)
  local from = state.rate
  local to = clamp(settings, from * factor)
  local next = copy(state)
  next.rate, next.lastGood, next.cutTo, next.cutAt = to, good, good * settings.cut, now
  next.episodeEnds, next.grown, next.told, next.cuts = episodeEnds, 0, to, state.cuts + 1
  return next, { reason = reason, signal = signal, value = value, from = from, to = to, at = now }
end

local function loss(settings, state, signal, now)
  if inEpisode(state, now) or (state.cutAt and signal.sentAt < state.cutAt) then
    return state, nil
  end
  local from = state.rate
  local drop = state.delivered > 0 and state.delivered < from * settings.cut
  return cut(settings, state, drop and math.max(DEEPEST_CUT, state.delivered / from) or settings.cut,
    state.delivered > 0 and math.min(from, state.delivered) or from,
    now + settings.episode, now, 'CUT', signal.lossKind, signal.retryAfter / 1e6)
end

local function report(settings, state, signal, now)
  local started = state.windowStarted + signal.started
  local succeeded = state.windowSucceeded + signal.succeeded
  local refused = state.windowRefused + signal.refused
  local held = signal.stale or state.held
  local told = nil
  if signal.stale and not state.held then
    told = { reason = 'HELD', signal = held, value = 0, from = state.rate, to = state.rate, at = now }
  end
  local elapsed = now - state.windowStart
  local next = copy(state)
  if elapsed < WINDOW then
    next.windowStarted, next.windowSucceeded, next.windowRefused = started, succeeded, refused
    next.held = held
    return next, told
  end
  local lately = succeeded * 1e6 / elapsed
  local delivered = lately
  if state.delivered ~= 0 and refused <= succeeded then
    delivered = state.delivered * (1 - DELIVERED_WEIGHT) + lately * DELIVERED_WEIGHT
  end
  local utilisation = started / (state.rate * elapsed / 1e6)
  next.windowStart, next.windowStarted, next.windowSucceeded, next.windowRefused = now, 0, 0, 0
  next.delivered, next.held = delivered, held
  if held then
    return next, told
  end
  local from = math.max(state.windowStart, state.episodeEnds, state.quietUntil)
  local grown = state.grown
  if now > from and utilisation >= settings.appLimited then
    grown = grown + (now - from)
  end
  local climbed = adaptive.climbed(settings, state, grown)
  if delivered > 0 then
    climbed = math.min(climbed, GROWTH_OVER_DELIVERED * delivered)
  end
  local rate = clamp(settings, math.max(state.rate, climbed))
  next.grown, next.rate = grown, rate
  local step = rate >= state.told * TOLD_STEP or (rate > state.told
    and ((rate >= state.lastGood and state.told < state.lastGood) or rate >= settings.ceiling))
  if not step then
    return next, nil
  end
  next.told = rate
  return next, { reason = 'CLIMB', signal = 'climb', value = state.lastGood, from = state.told, to = rate, at = now }
end

local function latency(settings, state, signal, now)
  local sample = signal.us
  local first = state.latencies == 0
  local shortRun = first and sample or state.shortLatency * (1 - SHORT_WEIGHT) + sample * SHORT_WEIGHT
  local creep = 2 ^ (math.max(0, now - state.latencyAt) / BASELINE_DOUBLING)
  local heard = math.min(LATENCY_WARM_UP, state.latencies + 1)
  local baseline = shortRun
  if heard >= LATENCY_WARM_UP then
    baseline = math.min(shortRun, state.baselineLatency * creep)
  end
  local measured = copy(state)
  measured.shortLatency, measured.baselineLatency, measured.latencyAt, measured.latencies =
    shortRun, baseline, now, heard
  local allowed = baseline * settings.latencyTolerance
  -- a rate no more than the downstream delivers lets its queue drain: a slow answer is the queue's past
  local draining = state.delivered > 0 and state.rate <= state.delivered
  if heard < LATENCY_WARM_UP or shortRun <= allowed or inEpisode(state, now) or draining then
    return measured, nil
  end
  local from = state.rate
  local factor = math.max(settings.cut, allowed / shortRun)
  if state.delivered > 0 and state.delivered < from * factor then
    factor = math.max(DEEPEST_CUT, state.delivered / from)
  end
  local good = state.delivered > 0 and math.min(from, state.delivered) or from
  return cut(settings, measured, factor, good, now + settings.episode, now, 'GRADIENT', 'latency', shortRun / 1e3)
end

local function gauge(settings, state, signal, now)
  local resumed = nil
  if state.held == signal.name then
    resumed = { reason = 'RESUMED', signal = signal.name, value = signal.value, from = state.rate, to = state.rate,
      at = now }
    state = copy(state)
    state.held, state.windowStart = false, now
  end
  if signal.value <= signal.threshold or inEpisode(state, now) then
    return state, resumed
  end
  return cut(settings, state, math.max(settings.cut, signal.threshold / signal.value), state.rate,
    now + settings.episode, now, 'GRADIENT', signal.name, signal.value)
end

local function quota(settings, state, signal, now)
  local allows = signal.remaining / (signal.reset / 1e6)
  if allows >= state.rate then
    return state, nil
  end
  local to = clamp(settings, allows)
  local next = copy(state)
  next.rate, next.lastGood, next.cutTo, next.grown = to, to, to * settings.cut, settings.climb
  next.quietUntil, next.told = math.max(state.quietUntil, now + signal.reset), to
  return next, { reason = 'QUOTA', signal = 'quota', value = allows, from = state.rate, to = to, at = now }
end

local RULES = { loss = loss, report = report, latency = latency, gauge = gauge, quota = quota }

-- The state after signal at now, and the change it made (nil if none told).
function adaptive.next(settings, state, signal, now)
  local rule = RULES[signal.kind]
  if rule == nil then
    error('unknown adaptive signal ' .. tostring(signal.kind) .. ' (loss, report, latency, gauge or quota)')
  end
  return rule(settings, state, signal, now)
end
end
