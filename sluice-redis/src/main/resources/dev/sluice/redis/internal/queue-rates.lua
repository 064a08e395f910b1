-- Limits and rates: the limits of a group (its own or the defaults) and the rate decisions of queues and groups,
-- made by the limit script's algorithms (runLimit, which QueueScript puts before the library), each rate decided
-- once per call (callRates); and orderKey, the waiting order's member prefix.
-- Keys: B:gl (groups' own limits), B:m (defaults, rate generations), B:rate:q:<n>, B:rate:d:<g>:<n>,
-- B:rate:o:<g>:<n> (and each with :aux: the limiter state, see queue-state.lua).

-- The limits of group gid: its own ("<concurrency>|<maxWaiting>|<generation>|<rate>" in B:gl), or the defaults.
-- Returns concurrency, maxWaiting, the rate (a policy as "<kind>|<span>|<limit>|<its Java text>", or '' for
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
-- ones expire by themselves), as the in-memory engine makes a new rate.
local function adoptable(old, new)
  if not old or old == '' or new == '' then
    return false
  end
  return string.match(old, '^(%a+)|') == string.match(new, '^(%a+)|')
end

-- A generation of rate state no rate of the queue has had.
local function newGeneration()
  return int(call('HINCRBY', META, 'rgen', 1))
end

-- Asks the limiter algorithm (limit-*.lua, the same code as the limiters' script) whether one start may go now
-- under rate (as limitsOf gives it), in the state of scope: 'acquire' takes it, 'peek' only asks. Returns
-- whether it may, and if not, in how many microseconds (rounded up) it may.
local function askRate(scope, rate, operation, permits)
  local kind, span, limit = string.match(rate, '^(%a+)|(%d+)|(%d+)|')
  local key = B .. ':rate:' .. scope
  local seconds = math.floor(now / 1000000)
  local time = format('%d %d', seconds, (now - seconds * 1000000) * 1000)
  local reply = runLimit({ key, key .. ':aux' }, { operation, time, permits or '1', '1', kind, span, limit, '' })
  if reply[3] == 1 then
    return true, 0, tonumber(reply[4])
  end
  return false, math.ceil(tonumber(reply[5]) / 1000)
end

-- The rates of a claim call (the queue's, each group's), each decided once per call for all of the call's claims:
-- one peek tells how many starts a rate allows now, and they are taken together with one acquire when the call
-- ends. Every claim of a call starts at the same instant, so taking k permits at once is exactly what k takes in
-- turn would be. One table, since the library is near Lua's 200 locals: callRates.of[scope] = { rate, left, taken }.
local callRates = { of = {} }

-- Takes the permits of the starts counted under scope (all scopes if nil) so far.
function callRates.settle(only)
  for scope, r in pairs(callRates.of) do
    if (only == nil or scope == only) and r.taken > 0 then
      askRate(scope, r.rate, 'acquire', int(r.taken))
      r.taken = 0
    end
  end
end

-- Whether rate lets one more start of this call go now in the state of scope; if not, in how many microseconds
-- one may. A start it allows is counted with callRates.took.
function callRates.allows(scope, rate)
  local r = callRates.of[scope]
  if r == nil or r.left == 0 then
    callRates.settle(scope)
    local may, wait, remaining = askRate(scope, rate, 'peek')
    if not may then
      return false, wait
    end
    callRates.of[scope] = { rate = rate, left = remaining + 1, taken = 0 }
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
