-- Statistics: per scope (the queue or a group) wait and processing times, totals and completions per second,
-- counted in the call and written once at its end (flushCounts); and the table COMMANDS, with the commands
-- stats, groups, statsAdd and repPop (entry() runs them from there).
-- Keys: B:s:<scope> (hash, expires a day after its last change), B:sg (released groups), B:c, B:f (counts of
-- kept jobs), B:g, B:m; repPop: B:rep:todo.
-- Cost: groups is O(groups held + groups released within the life).

local counts, countIn, flushCounts, deferred, recordBoth, countFinish, countKept, forgetStaleGroups, COMMANDS
do -- this file's own locals end with it (see Files in queue-state.lua)
-- Per scope ('q' for the queue, a group's name in keys for a group), hash B:s:<scope>: wait and processing
-- times in log-linear buckets of nanoseconds (32 per power of two, as the in-memory Histogram), their count
-- and maximum; totals of completed and failed jobs, and of added ones for a group (the queue's is in B:m); the
-- finished jobs of the scope still kept; completions in the last 60 one-second slots. A group's hash expires a
-- day after its last change; B:sg lists the released groups for that long.
local STATS_TTL = 86400

local function statsKey(scope)
  return cachedKey(':s:', scope)
end

-- Counts added to statistics hashes in this call, by key then field, written once at its end (flushCounts) or
-- before statistics are read in it: jobs ending in one call share one command per counter.
counts = {}

function countIn(scope, field, delta)
  local key = statsKey(scope)
  local fields = counts[key]
  if fields == nil then
    fields = {}
    counts[key] = fields
  end
  fields[field] = (fields[field] or 0) + delta
end

-- Sets a group's statistics to expire a day from now, unless this library did so for that key within the last
-- minute (the day then ends at most a minute early; cache 'e' holds when).
local function expireStats(key)
  local c = cachedIn('e')
  local last = c.of[key]
  if last == nil or now - last >= 60000000 or now < last then
    call('EXPIRE', key, STATS_TTL)
    if last == nil then
      c.n = c.n + 1
    end
    c.of[key] = now
  end
end

-- Writes the counts of this call; a group's statistics then expire a day after this change.
function flushCounts()
  for key, fields in pairs(counts) do
    for field, delta in pairs(fields) do
      if delta ~= 0 then
        call('HINCRBY', key, field, delta)
      end
    end
    if key ~= statsKey('q') then
      expireStats(key)
    end
  end
  counts = {}
end

local function touchStats(scope)
  if scope ~= 'q' then
    expireStats(statsKey(scope))
  end
end

local function bucket(nanos)
  local value = math.max(0, math.floor(nanos))
  if value < 32 then
    return value
  end
  local _, exponent = math.frexp(value) -- value = m * 2^exponent, 0.5 <= m < 1: its highest bit is exponent - 1
  local bits = exponent - 1
  return (bits - 4) * 32 + math.floor(math.ldexp(value, 5 - bits)) - 32
end

local function recordTime(scope, kind, nanos)
  local key = statsKey(scope)
  call('HINCRBY', key, kind .. bucket(nanos), 1)
  local max = tonumber(call('HGET', key, kind .. 'max') or '-1')
  if nanos > max then
    call('HSET', key, kind .. 'max', int(nanos))
  end
end

-- Set while a worker's endings and claims are recorded: the worker measures their wait and processing times and
-- completions per second itself and writes them with statsAdd, so that a job does not pay for them here.
deferred = false

function recordBoth(gid, kind, nanos)
  if deferred then
    return
  end
  recordTime('q', kind, nanos)
  recordTime(gid, kind, nanos)
end

-- Counts n jobs of scope finishing in state s ('c' or 'f'): a group's totals (the queue's are the meta hash's),
-- and, unless deferred, completions per second.
function countFinish(scope, s, n)
  local key = statsKey(scope)
  if scope ~= 'q' then
    countIn(scope, s == 'c' and 'done' or 'fail', n)
  end
  if s == 'c' then
    if deferred then
      return
    end
    local second = math.floor(now / 1000000)
    local slot = second % 60
    if tonumber(call('HGET', key, 's' .. slot) or 'nil') ~= second then
      call('HSET', key, 's' .. slot, int(second), 't' .. slot, 0)
    end
    call('HINCRBY', key, 't' .. slot, n)
  end
  touchStats(scope)
end

function countKept(gid, s, delta)
  countIn(gid, s == 'c' and 'kc' or 'kf', delta)
end

-- Drops from B:sg the groups released at least the statistics' life ago.
function forgetStaleGroups()
  call('ZREMRANGEBYSCORE', STATS_GROUPS, '-inf', int(now - STATS_TTL * 1000000))
end

local function upperBound(index)
  local octave, subBucket = math.floor(index / 32), index % 32
  if octave == 0 then
    return subBucket
  end
  return (32 + subBucket + 1) * 2 ^ (octave - 1) - 1
end

-- {count, p50, p90, p99, max} of one kind of time in a scope's hash (as a flat field map).
local function latency(fields, kind)
  local max = tonumber(fields[kind .. 'max'] or '0')
  local indexes, count = {}, 0
  for field, value in pairs(fields) do
    local index = string.match(field, '^' .. kind .. '(%d+)$')
    if index then
      indexes[#indexes + 1] = tonumber(index)
      count = count + tonumber(value)
    end
  end
  if count == 0 then
    return { 0, 0, 0, 0, 0 }
  end
  table.sort(indexes)
  local reply = { count }
  for _, fraction in ipairs({ 0.50, 0.90, 0.99 }) do
    local rank = math.max(1, math.ceil(fraction * count))
    local seen = 0
    for _, index in ipairs(indexes) do
      seen = seen + tonumber(fields[kind .. index])
      if seen >= rank then
        reply[#reply + 1] = math.min(max, upperBound(index))
        break
      end
    end
  end
  reply[#reply + 1] = max
  return reply
end

-- The statistics of a scope: {completed, failed, completions in the last minute, kept completed, kept failed,
-- wait latency, processing latency, added}.
local function statsOf(scope)
  flushCounts()
  local flat = call('HGETALL', statsKey(scope))
  local fields = {}
  for i = 1, #flat, 2 do
    fields[flat[i]] = flat[i + 1]
  end
  local second = math.floor(now / 1000000)
  local lastMinute = 0
  for slot = 0, 59 do
    local stamp = tonumber(fields['s' .. slot] or 'nil')
    if stamp and stamp > second - 60 and stamp <= second then
      lastMinute = lastMinute + tonumber(fields['t' .. slot] or '0')
    end
  end
  if scope == 'q' then
    fields.done, fields.fail = m('completed'), m('failed')
  end
  return { tonumber(fields.done or '0'), tonumber(fields.fail or '0'), lastMinute, tonumber(fields.kc or '0'),
    tonumber(fields.kf or '0'), latency(fields, 'w'), latency(fields, 'p'), tonumber(fields.add or '0') }
end

-- The commands, one function each, by name: entry() runs the call's (see queue-entry.lua). Defined here, the
-- first file that adds to it; queue-commands.lua has most of them.
COMMANDS = {}

-- stats: ARGV: '' for the queue, else '=' .. group name ('=' alone: the ungrouped jobs). Replies {waiting,
-- delayed, active, then statsOf, then the rate as adaptive.describe() tells it}.
-- repPop: takes the oldest event of pending runs (see entry()); replies it, or nil.
COMMANDS.repPop = function()
  local event = call('LPOP', REP.todo)
  mset('todo', int(call('LLEN', REP.todo)))
  return event
end

COMMANDS.stats = function()
  local scope = ARG[3]
  if scope == '' then
    local reply = { mnum('waiting', 0), mnum('delayed', 0), mnum('active', 0) }
    for _, v in ipairs(statsOf('q')) do
      reply[#reply + 1] = v
    end
    reply[7] = call('LLEN', KEPT.c)
    reply[8] = call('LLEN', KEPT.f)
    reply[11] = mnum('added', 0)
    reply[12], reply[13], reply[14], reply[15], reply[16] =
      adaptive.describe('q:' .. int(mnum('rgq', 0)), m('rate'))
    return reply
  end
  local gid = scope == '=' and 'u' or 'g' .. sub(scope, 2)
  local g = findGroup(gid)
  local reply = { g and g[G_WAITING] or 0, g and g[G_DELAYED] or 0, g and g[G_ACTIVE] or 0 }
  for _, v in ipairs(statsOf(gid)) do
    reply[#reply + 1] = v
  end
  local _, _, rate, rateScope = limitsOf(gid)
  reply[12], reply[13], reply[14], reply[15], reply[16] = adaptive.describe(rateScope, rate)
  return reply
end

-- groups: Replies the groups (names in keys) that hold jobs, then those released within the statistics' life; a
-- group may be in both parts. O(groups held + groups released within the life).
COMMANDS.groups = function()
  forgetStaleGroups()
  local reply = call('HKEYS', GROUPS)
  for _, gid in ipairs(call('ZRANGE', STATS_GROUPS, 0, -1)) do
    reply[#reply + 1] = gid
  end
  return reply
end

-- statsAdd: the statistics a worker measured (PendingStats). ARGV: per entry a scope, a kind ('w'/'p' a
-- wait/processing bucket's count, 'W'/'P' the largest wait/processing time, 's' completions in a second), the
-- bucket or the epoch second, the amount. Replies 0.
COMMANDS.statsAdd = function()
  local touched = {}
  for i = 3, #ARG, 4 do
    local scope, kind, number, amount = ARG[i], ARG[i + 1], ARG[i + 2], ARG[i + 3]
    local key = statsKey(scope)
    if kind == 'w' or kind == 'p' then
      call('HINCRBY', key, kind .. number, amount)
    elseif kind == 'W' or kind == 'P' then
      local field = (kind == 'W' and 'w' or 'p') .. 'max'
      if tonumber(amount) > tonumber(call('HGET', key, field) or '-1') then
        call('HSET', key, field, amount)
      end
    else
      local second = tonumber(number)
      local slot = second % 60
      local stamp = tonumber(call('HGET', key, 's' .. slot) or '-1')
      if stamp < second then
        call('HSET', key, 's' .. slot, number, 't' .. slot, amount)
      elseif stamp == second then
        call('HINCRBY', key, 't' .. slot, amount)
      end
    end
    touched[scope] = true
  end
  for scope in pairs(touched) do
    touchStats(scope)
  end
  return 0
end
end
