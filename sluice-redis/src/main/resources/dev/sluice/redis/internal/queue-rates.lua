-- Limits and rates: the limits of a group (its own or the defaults) and the rate decisions of queues and groups,
-- made by the limit script's algorithms (LIMIT, which QueueScript puts before the library: one layer's decision
-- costs its load, decide and save, nothing more), each rate decided once per call (callRates); and orderKey, the
-- waiting order's member prefix.
-- Keys: B:gl (groups' own limits), B:m (defaults, rate generations), B:rate:q:<n>, B:rate:d:<g>:<n>,
-- B:rate:o:<g>:<n> (and each with :aux: the limiter state, see queue-state.lua).

-- The limits of group gid: its own ("<concurrency>|<maxQueued>|<generation>|<rate>" in B:gl), or the defaults.
-- Returns concurrency, maxQueued, the rate (a policy as "<kind>|<span>|<limit>|<its Java text>", or '' for
-- none) and the scope of the rate's state: 'o:' own or 'd:' defaults, the group, and the rate's generation (a
-- group's own rate and the default rate keep apart states, as in memory).
local ownLimits = {}
local function limitsOf(gid)
  if gid ~= 'u' then
    local own = ownLimits[gid]
    if own == nil then
      own = call('HGET', GLIMITS, gid) or false
      ownLimits[gid] = own
    end
    if own then
      local c, w, generation, rate = string.match(own, '^(%d+)|(%d+)|(%d+)|(.*)$')
      return tonumber(c), tonumber(w), rate, 'o:' .. gid .. ':' .. generation
    end
  end
  return mnum('gconc', NEVER), mnum('gmax', NEVER), m('grate') or '', 'd:' .. gid .. ':' .. int(mnum('rgd', 0))
end

-- Whether a rate's state carries over from rate old to rate new (stored forms, '' for none): both are rates of
-- the same kind. If not, the new rate starts from a fresh state (a new generation of its state keys; the old
-- ones expire by themselves), as the in-memory engine makes a new rate. An adaptive rate carries over only to itself.
local function adoptable(old, new)
  if not old or old == '' or new == '' then
    return false
  end
  if string.find(old, ';A,', 1, true) or string.find(new, ';A,', 1, true) then
    return old == new
  end
  return string.match(old, '^(%a+)|') == string.match(new, '^(%a+)|')
end

-- A generation of rate state no rate of the queue has had.
local function newGeneration()
  return int(call('HINCRBY', META, 'rgen', 1))
end

-- The rates of a claim call (the queue's, each group's), each decided once per call for all of the call's claims:
-- one peek tells how many starts a rate allows now, and they are taken together, from the state that peek read,
-- when the call ends. Every claim of a call starts at the same instant, so taking k permits at once is exactly
-- what k takes in turn would be. One table, since the library is near Lua's 200 locals: callRates.of[scope] =
-- { view, limit, left, taken }, view the state of the scope's limiter (LIMIT.view) until permits are taken from it;
-- callRates.clock, the time the limiter algorithms were last set to.
local callRates = { of = {} }

-- Takes the permits of the starts counted under scope (all scopes if nil) so far.
function callRates.settle(only)
  for scope, r in pairs(callRates.of) do
    if (only == nil or scope == only) and r.taken > 0 then
      LIMIT.decide(r.view, r.limit, r.taken, true)
      r.taken, r.view = 0, nil
    end
  end
end

-- The share of its rate a scope runs at now, its last pause by a rate-limited result having ended at pausedUntil
-- (Recovery.share): a quarter in the first second after it, half in the next, then whole; and the time to the next
-- step (nil once whole).
function callRates.recovery(pausedUntil)
  local since = now - pausedUntil
  if since < 0 or since >= 2000000 then
    return 1, nil
  elseif since < 1000000 then
    return 0.25, 1000000 - since
  end
  return 0.5, 2000000 - since
end

-- Whether rate (as limitsOf gives it) lets one more start of this call go now in the state of scope, last paused
-- by a rate-limited result until pausedUntil; if not, in how many microseconds (rounded up) one may: at most until
-- the ramp's next step. A start it allows is counted with callRates.took. The rate is scaled to its adaptive share,
-- or to its ramp's if it is not adaptive, as Scaled.rate does; the limiter algorithm is limit-*.lua's, the same code
-- as the limiters' script.
function callRates.allows(scope, rate, pausedUntil)
  local r = callRates.of[scope]
  if r == nil or r.left == 0 then
    callRates.settle(scope)
    if callRates.clock ~= now then
      local seconds = math.floor(now / 1000000)
      LIMIT.clockAt(seconds, (now - seconds * 1000000) * 1000, ARG[2] ~= '')
      callRates.clock = now
    end
    local kind, span, limit = string.match(rate, '^(%a+)|(%d+)|(%d+)|')
    local key = B .. ':rate:' .. scope
    -- an adaptive rate has no ramp: its cut and climb are its ramp
    local share, nextStep = adaptive.share(scope, rate), nil
    if share == nil then
      share, nextStep = callRates.recovery(pausedUntil)
    end
    span, limit = tonumber(span), tonumber(limit)
    if share < 1 then
      if kind == 'gcra' then
        span = math.ceil(span / share)
      end
      limit = math.max(1, math.floor(limit * share * (1 + 1e-12))) -- as AdaptiveRate's part: no permit lost to rounding
    end
    local view = LIMIT.view(kind, key, key .. ':aux', span)
    local allowed, remaining, retry = LIMIT.decide(view, limit, 1, false)
    if allowed == 0 then
      return false, math.min(math.ceil(tonumber(retry) / 1000), nextStep or NEVER)
    end
    callRates.of[scope] = { view = view, limit = limit, left = remaining + 1, taken = 0 }
  end
  return true, 0
end

function callRates.took(scope)
  local r = callRates.of[scope]
  r.left, r.taken = r.left - 1, r.taken + 1
end

local function orderKey(n)
  return format('%016x', n)
end
