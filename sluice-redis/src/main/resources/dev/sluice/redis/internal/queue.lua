-- Sluice's queue library: every change of a queue's state, and every read that must see due work applied, as
-- one atomic call of entry(keys, args). The engine adds how it is called: as a Redis function (Redis 7+, loaded
-- once), or at the end of a script (EVALSHA). keys[1] is the queue's base key, "<prefix>:queue:{<name>}"; every
-- other key of the queue is the base plus a suffix (below), so all of them hash to the base's slot and the
-- library works on Redis Cluster.
-- args[1] (ARG below) names the command, args[2] is the time: empty (Redis's own clock, TIME) or epoch microseconds (a test
-- clock). Every command first applies what is due at that time (housekeep): delayed jobs that came due become
-- waiting, paused groups whose pause ended come back, leases that ran out put their jobs back (or fail them
-- after too many stalls), kept jobs whose age ran out go, remembered ids whose window ended are forgotten.
--
-- Time: epoch microseconds, exact in Lua's doubles until the year 2255. A boundary instant belongs to what
-- follows it: a job due at t waits at t, a pause or a lease ending at t no longer holds at t, a job kept for
-- an age is gone when it reaches it, an id remembered until t is free at t.
--
-- Keys (base B):
--   B:m          hash   the queue: codec, counters (waiting, delayed, active), totals (added, completed,
--                       failed), id and order counters, pause, configuration (concurrency, maxWaiting, group
--                       defaults)
--   B:j          hash   job id -> the job's record (cmsgpack array, fields R_* below)
--   B:p          hash   job id -> payload bytes, as the codec encoded them
--   B:w:<g>      zset   group g's waiting jobs: score -priority, member "<16 hex order><id>"
--   B:ring       list   groups that may start a job, served round-robin
--   B:g          hash   group g -> its record (cmsgpack array, fields G_*); absent when it holds nothing
--   B:gl         hash   group g -> its own limits "<concurrency>|<maxWaiting>|<rate generation>|<rate>"
--   B:park       zset   paused groups, score the end of the pause
--   B:d          zset   delayed jobs: score when due, member "<16 hex order><id>"
--   B:a          zset   active jobs: score when the lease runs out, member id
--   B:c, B:f     zset   completed and failed jobs kept: score the finish number, member id
--   B:x          zset   kept jobs with an age: score when they go, member id
--   B:ids        zset   ids of removed jobs still de-duplicating: score until when
--   B:sg         zset   groups released within the statistics' life (a day), whose statistics are kept: score
--                       when released
--   B:rate:q:<n>, B:rate:d:<g>:<n>, B:rate:o:<g>:<n> (and each with :aux)
--                       the limiter state (limit.lua's) of the queue's rate, and of group g under the default or
--                       its own rate; n is the rate's generation (meta rgq, rgd; B:gl), new when a rate is set that
--                       cannot carry the old one's state over. Each expires by itself.
--   B:ev         stream the queue's latest events, for the listeners of every process (see Events below)
--   B:listening  string present while some process listens: the stream's length cap; a listening process
--                       sets it with a TTL of 30 s and renews it every 10 s
--   B:mk         zset   the wake-up marker: one member, "0", added when a job may start that an idle worker
--                       waits for; idle workers wait for it with BZPOPMIN (see Idle workers below)
--   B:rm         zset   the same for producers that wait for room in a full queue (meta field 'rw')
-- Group names in keys: "u" for the jobs without a group, "g<name>" for group <name>.
--
-- Replies are arrays of integers and bulk strings, wrapped in an array (so that every reply has the same form:
-- see entry()); a job is replied as its snapshot (see snapshot()).
--
-- Events: every event a listener hears (added, active, progress, completed, retrying, failed, rate-limited,
-- rescheduled, drained), and 'removed' (a waiting or delayed job taken out, for whoever waits for its outcome),
-- takes the next number of the queue's event sequence (field 'ev' of B:m), whether anyone listens or not. While
-- B:listening exists, the call also appends it, in the same atomic call, to the stream B:ev with the id
-- 0-<number> and one field 'e': a MessagePack array {kind, job id or false, the job's snapshot without its
-- payload or false, then per kind: progress: percent; retrying: delay (us), error class or false, error message
-- or false; rate-limited: scope, retry-after (us); rescheduled: delay (us)}: about 175 bytes of Redis memory for
-- a job without a long result or stack trace. The stream is capped at about the length B:listening holds (XADD
-- MAXLEN ~: Redis trims whole nodes, of at most 100 entries or 4 KB, so it keeps a few dozen more), so it holds
-- the newest events only; a reader that finds the number it needs next gone knows exactly how many it missed,
-- and numbers missing because nobody listened when they happened count as missed too. A process's own events
-- reach its listeners from the reply (entry() gives the call's last number and how many it made), the others'
-- from the stream, merged by number. Cost: one GET per call that makes events; while listened, one XADD per
-- event.
--
-- Idle workers: a claim call that starts fewer jobs than it asked for (nothing more may start now) notes in
-- meta field 'wt' that idle workers wait until at least Redis's time + WAIT_HORIZON; a worker renews that by
-- claiming again at least that often. While 'wt' lies ahead, a call after which a job may start that could not
-- before (a job waiting, a group back in the ring, a job leaving active, pause or limits changed) adds the
-- marker B:mk, which wakes one waiting process; a claim call that started all it asked for while more wait adds
-- it again, which wakes the next. A call whose claims fell short adds none: nothing more may start. A worker
-- learns when things fall due (delays, pauses, rates, leases) from its own claims' replies; a call other than a
-- worker's that makes something fall due sooner (a delayed job added) adds the marker too, so that a waiting
-- worker claims and learns it. Another process's lease that runs out is found within 5 s of its end.
-- Producers waiting for room do the same with meta field 'rw' and marker B:rm: an add that finds the queue full
-- and waits notes it; a call after which a waiting or delayed job is gone (claimed, removed) or the bounds
-- changed adds the marker while 'rw' lies ahead.
-- Complexity: O(log n) per job moved, plus what falls due; reads of pages O(offset + limit).

-- set by entry(): a library of Redis functions may use neither Redis's API nor the standard library while it
-- loads
local call, pack, unpack, spread, tonumber, tostring, format, sub

-- This call's arguments (ARGV), its queue's keys, its command and its time: set by entry() at each call. The
-- functions below are defined once where Redis keeps them loaded (a library of Redis functions), or at each
-- call of a script.
local ARG
local B, META, JOBS, PAYLOADS, RING, GROUPS, GLIMITS
local PARKED, DELAYED, ACTIVE, EXPIRING, REMEMBERED, KEPT, STATS_GROUPS
-- repeatable jobs: the engine's record of each (text), its version, its template's payload, the run it waits
-- for, whether it is a fixed delay ('d') or not ('r'); and the events of pending runs the engine plans from
local REP_RECORD, REP_VERSION, REP_PAYLOAD, REP_PENDING, REP_KIND, REP_TODO
local cmd, now
local rpcall -- redis.pcall, set by entry()
local emit -- defined with the replies: records an event (see Events above)

local NEVER = 9007199254740992 -- 2^53: no time
local WAIT_HORIZON = 15000000 -- us: how long an idle worker's note in 'wt' holds (it claims again every 5 s)
-- What this call did that waiting processes care about (see Idle workers): mayStart, a job may start that could
-- not before; waitNoted, its claims fell short (its process has idle workers); dueLowered, something falls due
-- sooner than anything did before; roomFreed, a waiting or delayed job left or the bounds changed (a full queue
-- may have room); roomNoted, its add found the queue full and its producer waits for room.
local wake = {}

-- An integer as Redis should get it: Lua's own conversion keeps 14 digits, and times in microseconds have 16.
local function int(x)
  return format('%d', x)
end
local ORDER_MIDDLE = 4503599627370496 -- 2^52: waiting order keys above it go last, below it first

-- the job record
local R_NAME, R_GROUP, R_STATE, R_OPTS, R_CREATED, R_SEQ, R_KEY, R_READY, R_RUNAT, R_STARTED = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
local R_FINISHED, R_FINISH, R_MADE, R_RLIMITS, R_PROGRESS, R_RESULT = 11, 12, 13, 14, 15, 16
local R_FREASON, R_FCLASS, R_FTRACE, R_ATTEMPTS, R_HISTORY, R_TOKEN, R_STALLS, R_MAXSTALLS = 17, 18, 19, 20, 21, 22, 23, 24
local R_MAX_ATTEMPTS, R_PRIORITY, R_KC_N, R_KC_AGE, R_KF_N, R_KF_AGE, R_MAX_RL, R_DEDUP = 25, 26, 27, 28, 29, 30, 31, 32
local R_REPEAT, R_SCHEDULED, R_CLAIM = 33, 34, 35
local R_SIZE = 35
-- the group record
local G_WAITING, G_DELAYED, G_ACTIVE, G_PAUSED, G_INRING, G_HELD, G_PARKED = 1, 2, 3, 4, 5, 6, 7

local KEEP_ALL = 2147483647 -- Retention.keepAll()'s count
local MAX_HISTORY = 100 -- Job.MAX_ATTEMPTS_RECORDED: the first attempt and the latest ones

-- ------------------------------------------------------------------------------------------ records

-- What a library of functions keeps from call to call for the queue of this call (see entry()): caches of
-- names -> values, each of at most CACHED_MOST entries (then emptied); those of at most CACHED_QUEUES queues are
-- kept in cachesOfQueues (then all are dropped): a few MB of the server's Lua memory at most. A script starts
-- afresh at each call.
local cached = {}
local CACHED_MOST, CACHED_QUEUES = 1000, 100
local cachesOfQueues = { n = 0, of = {} }

local function cachedIn(name)
  local c = cached[name]
  if c == nil or c.n >= CACHED_MOST then
    c = { n = 0, of = {} }
    cached[name] = c
  end
  return c
end

-- The key B .. infix .. name, from cache infix.
local function cachedKey(infix, name)
  local c = cachedIn(infix)
  local key = c.of[name]
  if key == nil then
    key = B .. infix .. name
    c.of[name] = key
    c.n = c.n + 1
  end
  return key
end

local function waitingKey(gid)
  return cachedKey(':w:', gid)
end

-- The job records this call read or wrote (false: none), and the ids written: each record is read once and
-- written once, at the call's end (flushRecords), with one HSET and one HDEL for all.
-- In buf: jobs and dirty (as said above); activeGone, ids leaving B:a, and payloadsGone, ids whose payloads go,
-- both taken out together (flushGone) before B:a or B:p is used; keptEmpty, state ('c', 'f') -> whether its kept
-- set is empty (nil: not known).
local buf = {}

local function loadJob(id)
  local job = buf.jobs[id]
  if job == nil then
    local packed = call('HGET', JOBS, id)
    job = packed and unpack(packed) or false
    buf.jobs[id] = job
  end
  return job or nil
end

local function saveJob(id, job)
  buf.jobs[id] = job
  buf.dirty[id] = true
end

local function deleteJob(id)
  buf.jobs[id] = false
  buf.dirty[id] = true
end

local function jobExists(id)
  local job = buf.jobs[id]
  if job == nil then
    return call('HEXISTS', JOBS, id) == 1
  end
  return job ~= false
end

-- Sends command on key with the values of list, in chunks (Lua's unpack takes a few thousand at most); chunk
-- must be even for lists of pairs. Returns the replies' elements in order, for a command that replies a list.
local function inChunks(command, key, list, chunk)
  local replies = {}
  for i = 1, #list, chunk do
    local reply = call(command, key, spread(list, i, math.min(i + chunk - 1, #list)))
    if type(reply) == 'table' then
      for k = 1, #reply do
        replies[#replies + 1] = reply[k]
      end
    end
  end
  return replies
end

local function flushGone()
  if #buf.activeGone > 0 then
    inChunks('ZREM', ACTIVE, buf.activeGone, 1000)
    buf.activeGone = {}
  end
  if #buf.payloadsGone > 0 then
    inChunks('HDEL', PAYLOADS, buf.payloadsGone, 1000)
    buf.payloadsGone = {}
  end
end

-- Reads the records of ids into the call's cache with one HMGET (those not read yet).
local function prefetchJobs(ids)
  local wanted = {}
  for _, id in ipairs(ids) do
    if buf.jobs[id] == nil then
      wanted[#wanted + 1] = id
    end
  end
  local packed = inChunks('HMGET', JOBS, wanted, 1000)
  for k = 1, #wanted do
    buf.jobs[wanted[k]] = packed[k] and unpack(packed[k]) or false
  end
end

-- Writes the records of hash key whose names dirty holds, from records (name -> record, false: gone): one HSET for
-- those kept, one HDEL for those gone.
local function flushRecords(key, records, dirty)
  local put, gone = {}, {}
  for name in pairs(dirty) do
    local record = records[name]
    if record then
      put[#put + 1] = name
      put[#put + 1] = pack(record)
    else
      gone[#gone + 1] = name
    end
  end
  inChunks('HSET', key, put, 1000)
  inChunks('HDEL', key, gone, 1000)
end

local meta = nil -- the queue's hash, read once per call when needed
local metaDirty = {}

local function m(field)
  if meta == nil then
    meta = {}
    local flat = call('HGETALL', META)
    for i = 1, #flat, 2 do
      meta[flat[i]] = flat[i + 1]
    end
  end
  return meta[field]
end

local metaNumbers = {} -- the meta fields read as numbers in this call (false: not a number)

local function mnum(field, default)
  local v = metaNumbers[field]
  if v == nil then
    v = tonumber(m(field)) or false
    metaNumbers[field] = v
  end
  if v == false then
    return default
  end
  return v
end

local function mset(field, value)
  m(field)
  meta[field] = value
  metaDirty[field] = true
  metaNumbers[field] = nil
end

local function mdel(field)
  call('HDEL', META, field)
  m(field)
  meta[field] = nil
  metaDirty[field] = nil
  metaNumbers[field] = nil
end

local function madd(field, delta)
  local n = mnum(field, 0) + delta
  mset(field, int(n))
  metaNumbers[field] = n
end

-- Adds member to one of the timed sorted sets (delayed, paused groups, leases, expiries, remembered ids) at time
-- at, lowering the queue's 'due': no call looks at those sets before the earliest time any of them holds (a
-- 'due' left early by a removal only makes one call look and find nothing).
local function scheduleAt(key, at, member)
  if key == ACTIVE then
    flushGone()
  end
  call('ZADD', key, int(at), member)
  if at < mnum('due', NEVER) then
    mset('due', int(at))
    wake.dueLowered = true
  end
end

local function flushMeta()
  local flat = {}
  for field in pairs(metaDirty) do
    flat[#flat + 1] = field
    flat[#flat + 1] = meta[field]
  end
  if #flat > 0 then
    call('HSET', META, spread(flat))
  end
end

local groups = {} -- group records read in this call; false for a released group
local groupsDirty = {}

local function groupName(job)
  local g = job[R_GROUP]
  if g == false or g == nil then
    return 'u'
  end
  return 'g' .. g
end

local function findGroup(gid)
  local g = groups[gid]
  if g == nil then
    local packed = call('HGET', GROUPS, gid)
    g = packed and unpack(packed) or false
    groups[gid] = g
  end
  return g or nil
end

local function group(gid)
  local g = findGroup(gid)
  if g == nil then
    g = { 0, 0, 0, -NEVER, 0, 0, -NEVER }
    groups[gid] = g
    groupsDirty[gid] = true
  end
  return g
end

local function touchGroup(gid)
  groupsDirty[gid] = true
end


-- The limits of group gid: its own, or the defaults. Returns concurrency, maxWaiting.
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

-- Asks the limiter algorithm (limit.lua, the same code as the limiters' script) whether one start may go now
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

-- ------------------------------------------------------------------------------------------ statistics

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
local counts = {}

local function countIn(scope, field, delta)
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
local function flushCounts()
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
local deferred = false

local function recordBoth(gid, kind, nanos)
  if deferred then
    return
  end
  recordTime('q', kind, nanos)
  recordTime(gid, kind, nanos)
end

-- Counts a job of scope finishing in state s ('c' or 'f'): a group's totals (the queue's are the meta hash's),
-- and, unless deferred, completions per second.
local function countFinish(scope, s)
  local key = statsKey(scope)
  if scope ~= 'q' then
    countIn(scope, s == 'c' and 'done' or 'fail', 1)
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
    call('HINCRBY', key, 't' .. slot, 1)
  end
  touchStats(scope)
end

local function countKept(gid, s, delta)
  countIn(gid, s == 'c' and 'kc' or 'kf', delta)
end

-- Counts the jobs a call added in their groups' totals, one write per group: addedTo maps a group to how many.
local function countAdded(addedTo)
  for gid, n in pairs(addedTo) do
    call('HINCRBY', statsKey(gid), 'add', n)
    touchStats(gid)
  end
end

-- Drops from B:sg the groups released at least the statistics' life ago.
local function forgetStaleGroups()
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

-- Commands that run() calls from this table rather than spelling them out: Lua lets a function use at most 60
-- local variables of the functions around it (upvalues), and run() uses nearly all of them.
local COMMANDS = {}

-- stats: ARGV: '' for the queue, else '=' .. group name ('=' alone: the ungrouped jobs). Replies {waiting,
-- delayed, active, then statsOf}.
-- repPop: takes the oldest event of pending runs (see entry()); replies it, or nil.
COMMANDS.repPop = function()
  local event = call('LPOP', REP_TODO)
  mset('todo', int(call('LLEN', REP_TODO)))
  return event
end

COMMANDS.stats = function()
  local scope = ARG[3]
  if scope == '' then
    local reply = { mnum('waiting', 0), mnum('delayed', 0), mnum('active', 0) }
    for _, v in ipairs(statsOf('q')) do
      reply[#reply + 1] = v
    end
    reply[7] = call('ZCARD', KEPT.c)
    reply[8] = call('ZCARD', KEPT.f)
    reply[11] = mnum('added', 0)
    return reply
  end
  local gid = scope == '=' and 'u' or 'g' .. sub(scope, 2)
  local g = findGroup(gid)
  local reply = { g and g[G_WAITING] or 0, g and g[G_DELAYED] or 0, g and g[G_ACTIVE] or 0 }
  for _, v in ipairs(statsOf(gid)) do
    reply[#reply + 1] = v
  end
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

-- ------------------------------------------------------------------------------------------ groups (GroupRules)

-- Where a group belongs: 'ready', 'parked', 'held', 'idle' or 'released'.
local function place(gid, g)
  if g[G_WAITING] == 0 then
    if g[G_DELAYED] == 0 and g[G_ACTIVE] == 0 and g[G_PAUSED] <= now then
      return 'released'
    end
    return 'idle'
  end
  local conc = limitsOf(gid)
  if g[G_ACTIVE] >= conc then
    return 'held'
  end
  if math.max(g[G_PAUSED], g[G_PARKED] or -NEVER) > now then
    return 'parked'
  end
  return 'ready'
end

local function release(gid, g)
  if g[G_INRING] == 1 then
    call('LREM', RING, 0, gid)
  end
  call('ZREM', PARKED, gid)
  groups[gid] = false
  groupsDirty[gid] = true
  -- its statistics outlive it: listed for their life; a group listed for the first time clears out stale ones
  if gid ~= 'u' and call('ZADD', STATS_GROUPS, int(now), gid) == 1 then
    forgetStaleGroups()
  end
end

local function releaseIfIdle(gid, g)
  if g[G_WAITING] == 0 and g[G_DELAYED] == 0 and g[G_ACTIVE] == 0 and g[G_PAUSED] <= now then
    release(gid, g)
  end
end

local function offer(gid, g)
  if g[G_INRING] == 1 or g[G_HELD] == 1 then
    return
  end
  local where = place(gid, g)
  if where == 'ready' then
    call('RPUSH', RING, gid)
    wake.mayStart = true
    g[G_INRING] = 1
    touchGroup(gid)
  elseif where == 'parked' then
    scheduleAt(PARKED, math.max(g[G_PAUSED], g[G_PARKED] or -NEVER), gid)
  elseif where == 'held' then
    g[G_HELD] = 1
    touchGroup(gid)
  end
end

local function jobEnded(gid, g)
  if g[G_HELD] == 1 then
    g[G_HELD] = 0
    touchGroup(gid)
    offer(gid, g)
  end
end

-- ------------------------------------------------------------------------------------------ moving jobs

-- Makes a job wait, ready since readyAt (default now: a delayed job is ready since it came due, though the
-- call that promotes it may come later).
local function makeWaiting(id, job, atFront, readyAt)
  local gid = groupName(job)
  local g = group(gid)
  job[R_STATE] = 'w'
  job[R_READY] = readyAt or now
  job[R_RUNAT] = false
  local key
  if atFront then
    key = ORDER_MIDDLE - mnum('front', 0) - 1
    madd('front', 1)
  else
    madd('seq', 1)
    job[R_SEQ] = mnum('seq', 0)
    key = ORDER_MIDDLE + job[R_SEQ]
  end
  job[R_KEY] = orderKey(key)
  call('ZADD', waitingKey(gid), int(-job[R_PRIORITY]), job[R_KEY] .. id)
  g[G_WAITING] = g[G_WAITING] + 1
  touchGroup(gid)
  madd('waiting', 1)
  offer(gid, g)
end

local function makeDelayed(id, job, runAt)
  local gid = groupName(job)
  local g = group(gid)
  job[R_STATE] = 'd'
  job[R_RUNAT] = runAt
  madd('seq', 1)
  job[R_SEQ] = mnum('seq', 0)
  job[R_KEY] = orderKey(job[R_SEQ])
  scheduleAt(DELAYED, runAt, job[R_KEY] .. id)
  g[G_DELAYED] = g[G_DELAYED] + 1
  touchGroup(gid)
  madd('delayed', 1)
end

-- Makes a job wait now, or delays it by delay microseconds if that is more than 0.
local function waitOrDelay(id, job, delay)
  if delay > 0 then
    makeDelayed(id, job, now + delay)
  else
    makeWaiting(id, job, false)
  end
end

local function remember(id, job)
  local window = job[R_DEDUP]
  if window and window >= 0 then
    local untilAt = job[R_FINISHED] + window
    if untilAt > now then
      scheduleAt(REMEMBERED, untilAt, id)
    end
  end
end

-- Tells the engine (a list it reads after the call) that the pending run id of a repeatable job came due, ended
-- or was removed, so that it plans the next run.
local function repeatEvent(id, job, event)
  local repeatId = job[R_REPEAT]
  if repeatId and call('HGET', REP_PENDING, repeatId) == id then
    call('RPUSH', REP_TODO, event .. '|' .. int(job[R_SCHEDULED] or 0) .. '|' .. int(now) .. '|' .. repeatId)
    madd('todo', 1)
  end
end

-- Removes a finished job; its id is remembered for its de-duplication window, if one is left.
local function removeFinished(id, job)
  countKept(groupName(job), job[R_STATE], -1)
  call('ZREM', KEPT[job[R_STATE]], id)
  call('ZREM', EXPIRING, id)
  deleteJob(id)
  buf.payloadsGone[#buf.payloadsGone + 1] = id
  remember(id, job)
end

-- Keeps a job that just finished in state s ('c' or 'f') under its retention.
local function finish(id, job, s)
  job[R_STATE] = s
  job[R_FINISHED] = now
  madd('finishes', 1)
  job[R_FINISH] = mnum('finishes', 0)
  local count, age
  if s == 'c' then
    count, age = job[R_KC_N], job[R_KC_AGE]
    madd('completed', 1)
  else
    count, age = job[R_KF_N], job[R_KF_AGE]
    madd('failed', 1)
  end
  local kept = KEPT[s]
  countFinish('q', s)
  countFinish(groupName(job), s)
  if count == 0 then
    if buf.keptEmpty[s] == nil then
      buf.keptEmpty[s] = call('ZCARD', kept) == 0
    end
    if buf.keptEmpty[s] then
      -- kept by none, and none kept that it would evict: it goes at once, as the general way below ends
      deleteJob(id)
      buf.payloadsGone[#buf.payloadsGone + 1] = id
      remember(id, job)
      releaseIfIdle(groupName(job), group(groupName(job)))
      repeatEvent(id, job, 'ended')
      return
    end
  end
  buf.keptEmpty[s] = nil
  countKept(groupName(job), s, 1)
  call('ZADD', kept, int(job[R_FINISH]), id)
  saveJob(id, job)
  local evict = count < KEEP_ALL and call('ZCARD', kept) - count or 0
  if evict > 0 then
    local oldest = call('ZRANGE', kept, 0, evict - 1)
    for _, old in ipairs(oldest) do
      local o = old == id and job or loadJob(old)
      removeFinished(old, o)
    end
  end
  if age >= 0 and (evict <= 0 or jobExists(id)) then
    scheduleAt(EXPIRING, now + age, id)
  end
  local g = group(groupName(job))
  releaseIfIdle(groupName(job), g)
  repeatEvent(id, job, 'ended')
end

local function history(job)
  local h = job[R_HISTORY]
  if h == false or h == nil then
    h = {}
    job[R_HISTORY] = h
  end
  return h
end

local function startAttempt(job)
  job[R_ATTEMPTS] = job[R_ATTEMPTS] + 1
  local h = history(job)
  if #h >= MAX_HISTORY then
    table.remove(h, 2)
  end
  h[#h + 1] = { job[R_ATTEMPTS], job[R_STARTED], false, false, false }
end

local function endAttempt(job, outcome, err)
  local h = history(job)
  local last = h[#h]
  last[3] = now
  last[4] = outcome
  last[5] = err or false
end

-- Takes a job out of ACTIVE; false if token no longer owns it.
local function leaveActive(id, job, token)
  if job == nil or job[R_STATE] ~= 'a' or job[R_TOKEN] ~= token then
    return false
  end
  job[R_TOKEN] = job[R_TOKEN] + 1
  job[R_CLAIM] = nil
  buf.activeGone[#buf.activeGone + 1] = id
  wake.mayStart = true
  local gid = groupName(job)
  local g = group(gid)
  g[G_ACTIVE] = g[G_ACTIVE] - 1
  touchGroup(gid)
  madd('active', -1)
  recordBoth(gid, 'p', (now - job[R_STARTED]) * 1000)
  jobEnded(gid, g)
  return true
end

local function failForGood(id, job, reason, class, trace)
  job[R_FREASON] = reason
  job[R_FCLASS] = class or false
  job[R_FTRACE] = trace or false
  finish(id, job, 'f')
end

-- Promotes due delayed jobs, brings back groups whose pause ended, recovers jobs whose lease ran out, expires
-- kept jobs and forgets remembered ids.
-- The earliest time in the timed sorted sets; NEVER if they are empty.
local function earliest()
  local next = NEVER
  for _, key in ipairs({ DELAYED, PARKED, ACTIVE, EXPIRING, REMEMBERED }) do
    local first = call('ZRANGE', key, 0, 0, 'WITHSCORES')
    if first[2] then
      local at = tonumber(first[2])
      if at < next then
        next = at
      end
    end
  end
  return next
end

-- A delayed job (its member in B:d) that came due at dueAt becomes waiting. Returns its id and record, or nil.
local function promote(member, dueAt)
  local id = sub(member, 17)
  call('ZREM', DELAYED, member)
  local job = loadJob(id)
  if job then
    local gid = groupName(job)
    local g = group(gid)
    g[G_DELAYED] = g[G_DELAYED] - 1
    touchGroup(gid)
    madd('delayed', -1)
    makeWaiting(id, job, false, dueAt)
    saveJob(id, job)
    return id, job
  end
end

-- A paused (or rate-parked) group whose time ended comes back.
local function unpark(gid)
  call('ZREM', PARKED, gid)
  local g = findGroup(gid)
  if g then
    g[G_PARKED] = -NEVER
    touchGroup(gid)
    offer(gid, g)
    releaseIfIdle(gid, g)
  end
end

local function housekeep()
  if mnum('due', -NEVER) > now then
    return
  end
  -- delayed jobs coming due and paused groups coming back, in the order of their times (a job first at a tie),
  -- each at its own time, as the in-memory engine wakes at each: the ring's order follows when things happened,
  -- not when a call came to see them
  local due = call('ZRANGEBYSCORE', DELAYED, '-inf', now, 'WITHSCORES', 'LIMIT', 0, 1000)
  local unparked = call('ZRANGEBYSCORE', PARKED, '-inf', now, 'WITHSCORES')
  local callTime = now
  local promoted = {}
  local i, j = 1, 1
  while i <= #due or j <= #unparked do
    local dueAt = i <= #due and tonumber(due[i + 1]) or NEVER
    local parkEnd = j <= #unparked and tonumber(unparked[j + 1]) or NEVER
    if dueAt <= parkEnd then
      now = dueAt
      local id, job = promote(due[i], dueAt)
      if id then
        promoted[#promoted + 1] = { id, job }
      end
      i = i + 2
    else
      now = parkEnd
      unpark(unparked[j])
      j = j + 2
    end
  end
  now = callTime
  -- the engine plans a repeatable job's next run from the time a call saw its run come due
  for _, p in ipairs(promoted) do
    repeatEvent(p[1], p[2], 'due')
  end
  local stalled = call('ZRANGEBYSCORE', ACTIVE, '-inf', now, 'LIMIT', 0, 1000)
  for _, id in ipairs(stalled) do
    local job = loadJob(id)
    if leaveActive(id, job, job and job[R_TOKEN]) then
      job[R_STALLS] = job[R_STALLS] + 1
      endAttempt(job, 'INTERRUPTED', 'its worker lost its lease (stalled)')
      if job[R_STALLS] > job[R_MAXSTALLS] then
        failForGood(id, job, 'stalled ' .. job[R_STALLS] .. ' times, more than maxStalls ' .. job[R_MAXSTALLS]
            .. ': its worker stopped renewing its lease (it died, froze or lost Redis)')
        emit('failed', id, job)
        if mnum('waiting', 0) + mnum('delayed', 0) + mnum('active', 0) == 0 then
          emit('drained')
        end
      else
        makeWaiting(id, job, true)
        saveJob(id, job)
      end
    end
  end
  local expired = call('ZRANGEBYSCORE', EXPIRING, '-inf', now, 'LIMIT', 0, 1000)
  for _, id in ipairs(expired) do
    local job = loadJob(id)
    if job then
      removeFinished(id, job)
    else
      call('ZREM', EXPIRING, id)
    end
  end
  call('ZREMRANGEBYSCORE', REMEMBERED, '-inf', now)
  flushGone()
  mset('due', int(earliest()))
end

-- ------------------------------------------------------------------------------------------ replies

local STATES = { w = 'WAITING', d = 'DELAYED', a = 'ACTIVE', c = 'COMPLETED', f = 'FAILED' }

-- A job as the engine reads it: id, name, payload, group, state, options, attemptsMade, rateLimits, createdAt,
-- runAt, startedAt, finishedAt, progress, result, failure reason, failure class, failure trace, token,
-- attempts (each number, started, ended, outcome, error), stalls. Absent values are nil.
local function snapshot(id, job, payload)
  if payload == nil then
    flushGone()
    payload = call('HGET', PAYLOADS, id)
  end
  local s = job[R_STATE]
  local h = history(job)
  return {
    id, job[R_NAME], payload, job[R_GROUP], STATES[s], job[R_OPTS], job[R_MADE], job[R_RLIMITS],
    job[R_CREATED], s == 'd' and job[R_RUNAT] or false, job[R_ATTEMPTS] > 0 and job[R_STARTED] or false,
    (s == 'c' or s == 'f') and job[R_FINISHED] or false, job[R_PROGRESS], job[R_RESULT], job[R_FREASON],
    job[R_FCLASS], job[R_FTRACE], job[R_TOKEN], h, job[R_STALLS], job[R_REPEAT], job[R_SCHEDULED]
  }
end

-- ------------------------------------------------------------------------------------------ events

local listenCap -- in this call: nil until looked at, false when nobody listens, else the stream's cap
local eventsMade, eventsWritten -- in this call

-- The message of the exception whose class and stack trace a failed attempt gave: its trace's first line
-- without the class name (up to the first frame); false if it had none.
local function errorMessage(class, trace)
  if class == '' then
    return false
  end
  local head = trace
  local cut = string.find(trace, '\r?\n\tat ')
  if cut then
    head = sub(trace, 1, cut - 1)
  end
  local prefix = class .. ': '
  if sub(head, 1, #prefix) == prefix then
    return sub(head, #prefix + 1)
  end
  if head == class then
    return false
  end
  return head
end

-- Records event kind of job id (nil for drained) with its extra values (see Events above).
emit = function(kind, id, job, ...)
  madd('ev', 1)
  eventsMade = eventsMade + 1
  if listenCap == nil then
    listenCap = tonumber(call('GET', B .. ':listening') or '') or false
  end
  if not listenCap then
    return
  end
  local entry = pack({ kind, id or false, job and snapshot(id, job, false) or false, ... })
  local stream = B .. ':ev'
  local added = rpcall('XADD', stream, 'MAXLEN', '~', listenCap, '0-' .. m('ev'), 'e', entry)
  if type(added) == 'table' and added.err then
    -- the stream is ahead of the counter (the queue's hash was lost, not the stream): number on after it
    local info = call('XINFO', 'STREAM', stream)
    for i = 1, #info, 2 do
      if info[i] == 'last-generated-id' then
        mset('ev', int(tonumber(string.match(info[i + 1], '%d+$')) + 1))
      end
    end
    rpcall('XADD', stream, 'MAXLEN', '~', listenCap, '0-' .. m('ev'), 'e', entry)
  end
  eventsWritten = true
end

-- The earliest time something falls due: a delayed job, a pause's end, a lease's end, an expiry, a
-- remembered id's end; or the queue's own pause end. NEVER if nothing.
local function nextDue()
  local next = mnum('due', NEVER)
  for _, field in ipairs({ 'pausedUntil', 'rateBlocked' }) do
    local untilAt = mnum(field, -NEVER)
    if untilAt > now and untilAt < next then
      next = untilAt
    end
  end
  return next
end

-- ------------------------------------------------------------------------------------------ commands

-- The next job that may start now, made active with a lease until now + leaseFor; nil if none may.
local function claimOne(leaseFor, maxStalls, ref)
  if m('paused') == '1' or mnum('waiting', 0) == 0 or mnum('active', 0) >= mnum('concurrency', NEVER) then
    return nil
  end
  if mnum('pausedUntil', -NEVER) > now or mnum('rateBlocked', -NEVER) > now then
    return nil
  end
  local rate, rateScope = m('rate'), 'q:' .. int(mnum('rgq', 0))
  if rate then
    local may, wait = callRates.allows(rateScope, rate)
    if not may then
      mset('rateBlocked', int(now + wait))
      return nil
    end
  end
  while true do
    -- the group at the front goes to the back, where it stays if it starts a job and has more waiting: one
    -- command for the common case, a second (RPOP) to take it out of the ring otherwise
    local gid = call('LMOVE', RING, RING, 'LEFT', 'RIGHT')
    if not gid then
      return nil
    end
    local g = findGroup(gid)
    if not (g and g[G_INRING] == 1) then
      call('RPOP', RING)
    else
      local where = place(gid, g)
      if where == 'ready' then
        local _, _, groupRate, groupScope = limitsOf(gid)
        if groupRate ~= '' then
          local may, wait = callRates.allows(groupScope, groupRate)
          if may then
            callRates.took(groupScope)
          else
            where = 'rate'
            g[G_PARKED] = now + wait
            scheduleAt(PARKED, math.max(g[G_PAUSED], g[G_PARKED]), gid)
          end
        end
      end
      if where == 'ready' then
        if rate then
          callRates.took(rateScope)
        end
        local popped = call('ZPOPMIN', waitingKey(gid))
        wake.roomFreed = true
        local id = sub(popped[1], 17)
        g[G_WAITING] = g[G_WAITING] - 1
        if g[G_WAITING] == 0 then
          call('RPOP', RING)
          g[G_INRING] = 0
        end
        touchGroup(gid)
        madd('waiting', -1)
        local job = loadJob(id)
        job[R_STATE] = 'a'
        job[R_TOKEN] = job[R_TOKEN] + 1
        job[R_STARTED] = now
        job[R_PROGRESS] = 0
        job[R_MAXSTALLS] = maxStalls
        job[R_CLAIM] = ref
        g[G_ACTIVE] = g[G_ACTIVE] + 1
        madd('active', 1)
        startAttempt(job)
        saveJob(id, job)
        emit('active', id, job)
        local claimed = snapshot(id, job, false) -- claim() reads the payloads of all it claimed at once
        claimed[23] = job[R_READY]
        -- what only a waiting job needs goes: it comes again when the job waits again (makeWaiting)
        job[R_READY], job[R_KEY] = false, false
        return claimed
      end
      call('RPOP', RING)
      g[G_INRING] = 0
      touchGroup(gid)
      if where == 'held' then
        g[G_HELD] = 1
      elseif where == 'parked' then
        scheduleAt(PARKED, math.max(g[G_PAUSED], g[G_PARKED] or -NEVER), gid)
      end
    end
  end
end

-- Claims up to n jobs, appending their snapshots to reply; their leases and payloads are written and read
-- together, one command for all.
local function claim(n, leaseFor, maxStalls, ref, reply)
  local first = #reply + 1
  callRates.of = {}
  for _ = 1, n do
    local job = claimOne(leaseFor, maxStalls, ref)
    if job == nil then
      wake.waitNoted = true
      break
    end
    reply[#reply + 1] = job
  end
  callRates.settle()
  if #reply < first then
    return
  end
  if not wake.waitNoted and mnum('waiting', 0) > 0 then
    wake.mayStart = true
  end
  local leases, ids = {}, {}
  local leaseEnd = int(now + leaseFor)
  for i = first, #reply do
    leases[#leases + 1] = leaseEnd
    leases[#leases + 1] = reply[i][1]
    ids[#ids + 1] = reply[i][1]
  end
  flushGone()
  inChunks('ZADD', ACTIVE, leases, 1000)
  if now + leaseFor < mnum('due', NEVER) then
    mset('due', leaseEnd)
    wake.dueLowered = true
  end
  flushGone()
  local payloads = inChunks('HMGET', PAYLOADS, ids, 1000)
  for k = 1, #ids do
    reply[first + k - 1][3] = payloads[k]
  end
end

-- Redis's own time (TIME), epoch microseconds.
local function redisTime()
  local t = call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- Redis's own time: the call's time unless a test clock gave it.
local function redisNow()
  if ARG[2] == '' then
    return now
  end
  return redisTime()
end

-- Notes that some process waits (in meta field), or wakes one that waits (its marker) if this call did what it
-- waits for (see Idle workers above).
local function noteOrWake(noted, happened, field, marker)
  if noted then
    local until_ = redisNow() + WAIT_HORIZON
    if until_ - 1000000 > mnum(field, 0) then
      mset(field, int(until_))
    end
  elseif happened and mnum(field, 0) > 0 and mnum(field, 0) > redisNow() then
    call('ZADD', B .. marker, 0, '0')
  end
end

local function wakeOrNoteWaiting()
  noteOrWake(wake.waitNoted, wake.mayStart or (wake.dueLowered and cmd ~= 'finish'), 'wt', ':mk')
  noteOrWake(wake.roomNoted, wake.roomFreed, 'rw', ':rm')
end

-- Adds a new job with id from the 16 values of ARGV at base (as add takes them), counted in addedTo (a group ->
-- how many, for countAdded) if given, else in its group's totals at once. Returns its record and payload.
local function insertAt(base, id, addedTo)
  local groupArg = ARG[base + 2]
  local job = {}
  for f = 1, R_SIZE - 1 do
    job[f] = false -- R_CLAIM, last, stays absent while the job is not active: the record is a byte shorter
  end
  job[R_NAME] = ARG[base + 1]
  job[R_GROUP] = groupArg ~= '' and groupArg or false
  job[R_OPTS] = ARG[base + 3]
  job[R_CREATED] = now
  job[R_SEQ] = 0
  job[R_STARTED] = 0
  job[R_FINISHED] = 0
  job[R_FINISH] = 0
  job[R_MADE] = 0
  job[R_RLIMITS] = 0
  job[R_PROGRESS] = 0
  job[R_ATTEMPTS] = 0
  job[R_HISTORY] = {}
  job[R_TOKEN] = 0
  job[R_STALLS] = 0
  job[R_MAXSTALLS] = 0
  job[R_MAX_ATTEMPTS] = tonumber(ARG[base + 6])
  job[R_PRIORITY] = tonumber(ARG[base + 7])
  job[R_KC_N] = tonumber(ARG[base + 8])
  job[R_KC_AGE] = tonumber(ARG[base + 9])
  job[R_KF_N] = tonumber(ARG[base + 10])
  job[R_KF_AGE] = tonumber(ARG[base + 11])
  job[R_MAX_RL] = tonumber(ARG[base + 12])
  job[R_DEDUP] = tonumber(ARG[base + 13])
  job[R_REPEAT] = ARG[base + 14] ~= '' and ARG[base + 14] or false
  local scheduled = tonumber(ARG[base + 15])
  job[R_SCHEDULED] = job[R_REPEAT] and scheduled or false
  local payload = ARG[base + 4]
  flushGone()
  call('HSET', PAYLOADS, id, payload)
  local delay = tonumber(ARG[base + 5])
  if job[R_REPEAT] then
    delay = math.max(0, scheduled - now)
  end
  waitOrDelay(id, job, delay)
  saveJob(id, job)
  madd('added', 1)
  local gid = groupName(job)
  if addedTo then
    addedTo[gid] = (addedTo[gid] or 0) + 1
  else
    countAdded({ [gid] = 1 })
  end
  emit('added', id, job)
  return job, payload
end

-- add: ARG[3] = how many jobs ('w' after the number: the producer waits for room, see Idle workers; 'i': how many
-- adds, each on its own, see add()), then 16 values per job (see below). All or none: a job beyond the queue's or
-- its group's bound refuses the whole call ('full'). Replies {'ok', then per job: 1 if it was a duplicate, 0
-- if added, and its snapshot (nil for a duplicate whose job is gone but whose id is remembered)}.
local ADD_FIELDS = 16

-- Adds count jobs whose values begin at ARG[first], all or none, as add replies them.
local function addJobs(first, count, waits)
  local fresh, perGroup, seen = 0, {}, {}
  for i = 0, count - 1 do
    local base = first + i * ADD_FIELDS
    local id = ARG[base]
    if id == '' or (not seen[id] and not jobExists(id) and not call('ZSCORE', REMEMBERED, id)) then
      if id ~= '' then
        seen[id] = true
      end
      fresh = fresh + 1
      local g = ARG[base + 2] == '' and 'u' or ('g' .. ARG[base + 2])
      perGroup[g] = (perGroup[g] or 0) + 1
    end
  end
  local max = mnum('maxWaiting', NEVER)
  local held = mnum('waiting', 0) + mnum('delayed', 0)
  if fresh > 0 and held + fresh > max then
    wake.roomNoted = waits
    return { 'full', '', max, held, fresh }
  end
  for gid, wanted in pairs(perGroup) do
    local _, groupMax = limitsOf(gid)
    local g = findGroup(gid)
    local inGroup = g and (g[G_WAITING] + g[G_DELAYED]) or 0
    if inGroup + wanted > groupMax then
      wake.roomNoted = waits
      return { 'full', gid, groupMax, inGroup, wanted }
    end
  end
  local reply, addedTo = { 'ok' }, {}
  for i = 0, count - 1 do
    local base = first + i * ADD_FIELDS
    local id = ARG[base]
    local existing = id ~= '' and loadJob(id)
    if existing then
      reply[#reply + 1] = 1
      reply[#reply + 1] = snapshot(id, existing)
    elseif id ~= '' and call('ZSCORE', REMEMBERED, id) then
      reply[#reply + 1] = 1
      reply[#reply + 1] = false
    else
      if id == '' then
        repeat
          madd('ids', 1)
          id = int(mnum('ids', 0))
        until not jobExists(id) and not call('ZSCORE', REMEMBERED, id)
      end
      local job, payload = insertAt(base, id, addedTo)
      reply[#reply + 1] = 0
      reply[#reply + 1] = snapshot(id, job, payload)
    end
  end
  countAdded(addedTo)
  return reply
end

local function add()
  -- the count, then 'w' if the producer waits for room should the queue be full, or 'i' if the count is of adds
  -- (of one or more producers) made each on its own, in order, all or none within each: then each add is its
  -- job count and its jobs' values, and the reply {'each', then each add's reply}
  local how = sub(ARG[3], -1)
  local count = tonumber((how == 'w' or how == 'i') and sub(ARG[3], 1, -2) or ARG[3])
  if how ~= 'i' then
    return addJobs(4, count, how == 'w')
  end
  local reply, at = { 'each' }, 4
  for _ = 1, count do
    local jobs = tonumber(ARG[at])
    reply[#reply + 1] = addJobs(at + 1, jobs, false)
    at = at + 1 + jobs * ADD_FIELDS
  end
  return reply
end

-- finish: ARGV = how many endings, then each ending: id, token, how ('c' completed, 'f' failed, 'r'
-- rate-limited, 'a' run again, 'i' interrupted), whether to reply the job's snapshot ('1') or not ('0'), then
-- per kind: c: result ('' none, else '=' .. bytes); f:
-- outcome, reason, class, trace, retry delay (-1: fail now); r: scope ('GROUP' or 'QUEUE'), retry-after, note;
-- a: delay; i: reason. Then how many jobs to claim next, lease, maxStalls, the claims' reference (the caller's
-- name for this call: each job claimed carries it while active), how many references of the caller's earlier
-- calls whose replies it lost follow, and those references. The endings are recorded in order, then the jobs
-- that the lost calls claimed go back to waiting (releaseLostClaims), then the claims are made; their wait and processing times and completions per second are the caller's to record
-- (statsAdd). Replies {next due, 1 if an ending left nothing waiting, delayed or active (before the claims) else
-- 0, the time, then per ending: 1 if its token still owned the job else 0, its snapshot (if asked) or false,
-- what happened ('completed', 'failed', 'retrying', 'rate-limited', 'rescheduled', 'interrupted', ''); then the
-- jobs claimed, each a snapshot with the time it became ready added at the end}.
-- How many arguments each kind of ending has after its id, token, kind and snapshot flag.
local ENDING_ARGS = { c = 1, f = 5, r = 3, a = 1, i = 1 }

-- Records the ending whose arguments begin at ARG[at]; appends its three reply values. Returns whether it owned
-- the job, and where the next ending's arguments begin.
local function endOne(at, reply)
  local id, token, how, wanted = ARG[at], tonumber(ARG[at + 1]), ARG[at + 2], ARG[at + 3] == '1'
  local arg = at + 4
  local job = loadJob(id)
  local owned = leaveActive(id, job, token)
  if owned and wanted then
    flushGone()
  end
  local payload = owned and wanted and call('HGET', PAYLOADS, id)
  local happened = ''
  if owned then
    if how == 'c' then
      local value = ARG[arg]
      job[R_MADE] = job[R_MADE] + 1
      job[R_RESULT] = value ~= '' and sub(value, 2) or false
      endAttempt(job, 'COMPLETED', nil)
      finish(id, job, 'c')
      happened = 'completed'
    elseif how == 'f' then
      local outcome, reason, class, trace = ARG[arg], ARG[arg + 1], ARG[arg + 2], ARG[arg + 3]
      local delay = tonumber(ARG[arg + 4])
      job[R_MADE] = job[R_MADE] + 1
      endAttempt(job, outcome, reason)
      if delay < 0 or job[R_MADE] >= job[R_MAX_ATTEMPTS] then
        failForGood(id, job, reason, class ~= '' and class or nil, trace ~= '' and trace or nil)
        happened = 'failed'
      else
        waitOrDelay(id, job, delay)
        saveJob(id, job)
        happened = 'retrying'
      end
    elseif how == 'r' then
      local scope, after, note = ARG[arg], tonumber(ARG[arg + 1]), ARG[arg + 2]
      endAttempt(job, 'RATE_LIMITED', note)
      if job[R_RLIMITS] >= job[R_MAX_RL] then
        failForGood(id, job, 'rate limited ' .. (job[R_RLIMITS] + 1) .. ' times, more than maxRateLimits '
            .. job[R_MAX_RL])
        happened = 'failed'
      else
        job[R_RLIMITS] = job[R_RLIMITS] + 1
        local untilAt = now + after
        if scope == 'GROUP' then
          local gid = groupName(job)
          local g = group(gid)
          if untilAt > g[G_PAUSED] then
            g[G_PAUSED] = untilAt
            touchGroup(gid)
            if g[G_INRING] == 1 then
              call('LREM', RING, 0, gid)
              g[G_INRING] = 0
            end
          end
        elseif untilAt > mnum('pausedUntil', -NEVER) then
          mset('pausedUntil', int(untilAt))
        end
        makeWaiting(id, job, true)
        saveJob(id, job)
        happened = 'rate-limited'
      end
    elseif how == 'a' then
      local delay = tonumber(ARG[arg])
      endAttempt(job, 'RESCHEDULED', nil)
      waitOrDelay(id, job, delay)
      saveJob(id, job)
      happened = 'rescheduled'
    else
      endAttempt(job, 'INTERRUPTED', ARG[arg])
      makeWaiting(id, job, true)
      saveJob(id, job)
      happened = 'interrupted'
    end
  end
  if happened == 'retrying' then
    emit(happened, id, job, tonumber(ARG[arg + 4]), ARG[arg + 2] ~= '' and ARG[arg + 2] or false,
      errorMessage(ARG[arg + 2], ARG[arg + 3]))
  elseif happened == 'rate-limited' then
    emit(happened, id, job, ARG[arg], tonumber(ARG[arg + 1]))
  elseif happened == 'rescheduled' then
    emit(happened, id, job, tonumber(ARG[arg]))
  elseif happened == 'completed' or happened == 'failed' then
    emit(happened, id, job)
  end
  reply[#reply + 1] = owned and 1 or 0
  reply[#reply + 1] = owned and wanted and snapshot(id, job, payload) or false
  reply[#reply + 1] = happened
  return owned, arg + ENDING_ARGS[how]
end

-- Puts back to waiting, at the front, the active jobs that calls whose claim references are in refs claimed: their
-- worker never learned it had them (the reply was lost), so they ran nowhere; no stall is counted. O(active jobs).
local function releaseLostClaims(refs)
  for _, id in ipairs(call('ZRANGE', ACTIVE, 0, -1)) do
    local job = loadJob(id)
    if job and job[R_CLAIM] and refs[job[R_CLAIM]] and leaveActive(id, job, job[R_TOKEN]) then
      endAttempt(job, 'INTERRUPTED', 'its worker lost the reply of the call that claimed it')
      makeWaiting(id, job, true)
      saveJob(id, job)
    end
  end
end

local function finishCommand()
  local reply = { 0, 0, now }
  local at = 4
  deferred = true
  local anyOwned = false
  local ids = {}
  for _ = 1, tonumber(ARG[3]) do
    ids[#ids + 1] = ARG[at]
    at = at + 4 + ENDING_ARGS[ARG[at + 2]]
  end
  prefetchJobs(ids)
  at = 4
  for _ = 1, tonumber(ARG[3]) do
    local owned
    owned, at = endOne(at, reply)
    anyOwned = anyOwned or owned
  end
  if anyOwned and mnum('waiting', 0) + mnum('delayed', 0) + mnum('active', 0) == 0 then
    reply[2] = 1
    emit('drained')
  end
  local lostCount = tonumber(ARG[at + 4])
  if lostCount > 0 then
    local lost = {}
    for i = at + 5, at + 4 + lostCount do
      lost[ARG[i]] = true
    end
    releaseLostClaims(lost)
  end
  claim(tonumber(ARG[at]), tonumber(ARG[at + 1]), tonumber(ARG[at + 2]), ARG[at + 3], reply)
  deferred = false
  reply[1] = nextDue()
  return reply
end

local function jobsPage(state, offset, limit)
  local ids = {}
  if state == 'WAITING' then
    -- groups in the ring's order, then the others; in each, the order they run
    local seenGroup, order = {}, {}
    for _, gid in ipairs(call('LRANGE', RING, 0, -1)) do
      if not seenGroup[gid] then
        seenGroup[gid] = true
        order[#order + 1] = gid
      end
    end
    for _, gid in ipairs(call('HKEYS', GROUPS)) do
      if not seenGroup[gid] then
        seenGroup[gid] = true
        order[#order + 1] = gid
      end
    end
    local skip = offset
    for _, gid in ipairs(order) do
      local members = call('ZRANGE', waitingKey(gid), 0, -1)
      for _, member in ipairs(members) do
        if skip > 0 then
          skip = skip - 1
        elseif #ids < limit then
          ids[#ids + 1] = sub(member, 17)
        end
      end
      if #ids >= limit then
        break
      end
    end
  elseif state == 'DELAYED' then
    for _, member in ipairs(call('ZRANGE', DELAYED, offset, offset + limit - 1)) do
      ids[#ids + 1] = sub(member, 17)
    end
  elseif state == 'ACTIVE' then
    local all = {}
    for _, id in ipairs(call('ZRANGE', ACTIVE, 0, -1)) do
      local job = loadJob(id)
      all[#all + 1] = { id, job[R_STARTED], job[R_SEQ] }
    end
    table.sort(all, function(a, b)
      if a[2] ~= b[2] then
        return a[2] < b[2]
      end
      return a[3] < b[3]
    end)
    for i = offset + 1, math.min(#all, offset + limit) do
      ids[#ids + 1] = all[i][1]
    end
  else
    local key = state == 'COMPLETED' and KEPT.c or KEPT.f
    ids = call('ZREVRANGE', key, offset, offset + limit - 1)
  end
  local reply = {}
  for _, id in ipairs(ids) do
    reply[#reply + 1] = snapshot(id, loadJob(id))
  end
  return reply
end

-- Removes a waiting or delayed job.
local function removeUnstarted(id, job)
  local gid = groupName(job)
  local g = group(gid)
  if job[R_STATE] == 'w' then
    call('ZREM', waitingKey(gid), job[R_KEY] .. id)
    g[G_WAITING] = g[G_WAITING] - 1
    madd('waiting', -1)
  else
    call('ZREM', DELAYED, job[R_KEY] .. id)
    g[G_DELAYED] = g[G_DELAYED] - 1
    madd('delayed', -1)
  end
  touchGroup(gid)
  wake.roomFreed = true
  deleteJob(id)
  buf.payloadsGone[#buf.payloadsGone + 1] = id
  releaseIfIdle(gid, g)
  repeatEvent(id, job, 'removed')
  emit('removed', id)
end

-- Takes a finished job out of the kept ones and makes it wait again, its counts reset.
local function revive(id, job)
  countKept(groupName(job), job[R_STATE], -1)
  call('ZREM', KEPT[job[R_STATE]], id)
  call('ZREM', EXPIRING, id)
  job[R_FINISHED] = 0
  job[R_FINISH] = 0
  job[R_RESULT] = false
  job[R_MADE] = 0
  job[R_RLIMITS] = 0
  job[R_STALLS] = 0
  job[R_FREASON] = false
  job[R_FCLASS] = false
  job[R_FTRACE] = false
  makeWaiting(id, job, false)
  saveJob(id, job)
end

-- Forgets the pending run of repeatable job id, and takes it out if it is waiting or delayed (a running one
-- finishes); no event is listed for it, since it is no longer the pending run.
local function dropPendingRun(id)
  local pending = call('HGET', REP_PENDING, id)
  call('HDEL', REP_PENDING, id)
  local job = pending and loadJob(pending)
  if job and (job[R_STATE] == 'w' or job[R_STATE] == 'd') then
    removeUnstarted(pending, job)
  end
end

local function run()
  if cmd == 'open' then
    return COMMANDS.open()
  end
  housekeep()
  if cmd == 'add' then
    return add()
  elseif cmd == 'finish' then
    return finishCommand()
  elseif cmd == 'renew' then
    -- ARGV: lease, then id and token of each job. Replies 1 or 0 per job: whether its lease still held.
    local leaseFor = tonumber(ARG[3])
    local reply = {}
    for i = 4, #ARG, 2 do
      local id, token = ARG[i], tonumber(ARG[i + 1])
      local job = loadJob(id)
      if job and job[R_STATE] == 'a' and job[R_TOKEN] == token then
        scheduleAt(ACTIVE, now + leaseFor, id)
        reply[#reply + 1] = 1
      else
        reply[#reply + 1] = 0
      end
    end
    return reply
  elseif cmd == 'progress' then
    -- ARGV: id, token, percent. Replies the snapshot, or nil if the token no longer owns the job.
    local id, token = ARG[3], tonumber(ARG[4])
    local job = loadJob(id)
    if not job or job[R_STATE] ~= 'a' or job[R_TOKEN] ~= token then
      return false
    end
    job[R_PROGRESS] = tonumber(ARG[5])
    saveJob(id, job)
    emit('progress', id, job, job[R_PROGRESS])
    return snapshot(id, job)
  elseif cmd == 'owns' then
    local job = loadJob(ARG[3])
    return (job and job[R_STATE] == 'a' and job[R_TOKEN] == tonumber(ARG[4])) and 1 or 0
  elseif cmd == 'get' then
    local job = loadJob(ARG[3])
    return job and snapshot(ARG[3], job) or false
  elseif cmd == 'counts' then
    return { mnum('waiting', 0), mnum('delayed', 0), mnum('active', 0), call('ZCARD', KEPT.c), call('ZCARD', KEPT.f),
      mnum('added', 0), mnum('completed', 0), mnum('failed', 0) }
  elseif cmd == 'jobs' then
    return jobsPage(ARG[3], tonumber(ARG[4]), tonumber(ARG[5]))
  elseif cmd == 'pause' then
    mset('paused', ARG[3])
    return 1
  elseif cmd == 'paused' then
    return m('paused') == '1' and 1 or 0
  elseif cmd == 'remove' then
    -- Replies 1 removed, 0 no such job, 'active' for a running job.
    local id = ARG[3]
    local job = loadJob(id)
    if not job then
      return 0
    end
    local s = job[R_STATE]
    if s == 'a' then
      return 'active'
    elseif s == 'c' or s == 'f' then
      removeFinished(id, job)
    else
      removeUnstarted(id, job)
    end
    return 1
  elseif cmd == 'retry' then
    -- ARGV: id, state ('c' or 'f'). Replies 'ok', 'missing', or the state the job is in.
    local id = ARG[3]
    local job = loadJob(id)
    if not job then
      return 'missing'
    end
    if job[R_STATE] ~= ARG[4] then
      return STATES[job[R_STATE]]
    end
    revive(id, job)
    return 'ok'
  elseif cmd == 'retryFailed' then
    local ids = call('ZRANGE', KEPT.f, 0, -1)
    for _, id in ipairs(ids) do
      revive(id, loadJob(id))
    end
    return #ids
  elseif cmd == 'clean' then
    -- ARGV: state ('c' or 'f'), age: jobs at least that old go ('none': too long an age, none goes).
    local key = KEPT[ARG[3]]
    if ARG[4] == 'none' then
      return 0
    end
    local cutoff = now - tonumber(ARG[4])
    local removed = 0
    for _, id in ipairs(call('ZRANGE', key, 0, -1)) do
      local job = loadJob(id)
      if job[R_FINISHED] <= cutoff then
        removeFinished(id, job)
        removed = removed + 1
      end
    end
    return removed
  elseif cmd == 'drain' then
    local doomed = {}
    for _, gid in ipairs(call('HKEYS', GROUPS)) do
      for _, member in ipairs(call('ZRANGE', waitingKey(gid), 0, -1)) do
        doomed[#doomed + 1] = sub(member, 17)
      end
    end
    if ARG[3] == '1' then
      for _, member in ipairs(call('ZRANGE', DELAYED, 0, -1)) do
        doomed[#doomed + 1] = sub(member, 17)
      end
    end
    for _, id in ipairs(doomed) do
      removeUnstarted(id, loadJob(id))
    end
    return #doomed
  elseif cmd == 'groupLimits' then
    local c, w, rate = limitsOf(ARG[3] == '' and 'u' or 'g' .. ARG[3])
    return { c, w, rate }
  elseif cmd == 'groupCounts' then
    local gid = ARG[3] == '' and 'u' or 'g' .. ARG[3]
    local g = findGroup(gid)
    if not g then
      return { 0, 0, 0 }
    end
    return { g[G_WAITING], g[G_DELAYED], g[G_ACTIVE] }
  elseif COMMANDS[cmd] then
    return COMMANDS[cmd]()
  elseif cmd == 'repGet' then
    -- ARGV: id. Replies {record or nil, version, template payload or nil, pending run id or nil, now}.
    local id = ARG[3]
    return { call('HGET', REP_RECORD, id), tonumber(call('HGET', REP_VERSION, id) or '0'),
      call('HGET', REP_PAYLOAD, id), call('HGET', REP_PENDING, id), now }
  elseif cmd == 'repSave' then
    -- ARGV: id, the version read, the new record, payload, pending run id ('' none), kind ('d' fixed delay,
    -- 'r' other), 1 to take out the pending run read (waiting or delayed) first, how many runs to add, then 16
    -- values per run as add takes them. Replies 'stale' if the version moved on, else {'ok', then the snapshot of
    -- each run added}.
    local id = ARG[3]
    if tonumber(call('HGET', REP_VERSION, id) or '0') ~= tonumber(ARG[4]) then
      return 'stale'
    end
    if ARG[9] == '1' then
      dropPendingRun(id)
    end
    call('HSET', REP_RECORD, id, ARG[5])
    call('HSET', REP_PAYLOAD, id, ARG[6])
    call('HINCRBY', REP_VERSION, id, 1)
    call('HSET', REP_KIND, id, ARG[8])
    if ARG[7] == '' then
      call('HDEL', REP_PENDING, id)
    else
      call('HSET', REP_PENDING, id, ARG[7])
    end
    local reply = { 'ok' }
    for i = 0, tonumber(ARG[10]) - 1 do
      local base = 11 + i * 16
      local runId = ARG[base]
      if not jobExists(runId) and not call('ZSCORE', REMEMBERED, runId) then
        local job, payload = insertAt(base, runId)
        reply[#reply + 1] = snapshot(runId, job, payload)
      end
    end
    return reply
  elseif cmd == 'repDel' then
    -- ARGV: id. Takes out a repeatable job and its pending run if that is waiting or delayed. Replies 1, or 0 if
    -- there was none.
    local id = ARG[3]
    if call('HEXISTS', REP_RECORD, id) == 0 then
      return 0
    end
    dropPendingRun(id)
    call('HDEL', REP_RECORD, id)
    call('HDEL', REP_PAYLOAD, id)
    call('HDEL', REP_VERSION, id)
    call('HDEL', REP_KIND, id)
    return 1
  elseif cmd == 'repList' then
    -- Replies {id, record, payload, ...} of every repeatable job, by id.
    local ids = call('HKEYS', REP_RECORD)
    table.sort(ids)
    local reply = {}
    for _, id in ipairs(ids) do
      reply[#reply + 1] = id
      reply[#reply + 1] = call('HGET', REP_RECORD, id)
      reply[#reply + 1] = call('HGET', REP_PAYLOAD, id)
    end
    return reply
  elseif cmd == 'nextDue' then
    return nextDue()
  end
  return redis.error_reply('ERR sluice queue script: unknown command "' .. tostring(cmd) .. '"')
end

-- Clears what the last call kept, for the call of command cmd.
local function beginCall()
  meta, metaDirty, metaNumbers, groups, groupsDirty, ownLimits, deferred, counts = nil, {}, {}, {}, {}, {}, false, {}
  buf.jobs, buf.dirty, buf.activeGone, buf.payloadsGone, buf.keptEmpty = {}, {}, {}, {}, {}
  listenCap, eventsMade, eventsWritten = nil, 0, false
  wake.mayStart = cmd == 'pause' or cmd == 'limits' or cmd == 'open' or cmd == 'restore'
  wake.roomFreed = cmd == 'limits' or cmd == 'open' or cmd == 'restore'
  wake.waitNoted, wake.dueLowered, wake.roomNoted = false, false, false
end

-- Writes what the call changed and kept for its end.
local function endCall()
  wakeOrNoteWaiting()
  flushGone()
  flushRecords(JOBS, buf.jobs, buf.dirty)
  flushCounts()
  flushRecords(GROUPS, groups, groupsDirty)
  flushMeta()
end

-- The commands that rely on the queue's settings: each carries, as its last argument, the epoch of the settings
-- its process knows, and does nothing but reply 'restore' when the queue's differs (see queue-settings.lua).
local SETTLED = { add = true, finish = true, repSave = true, groupLimits = true }

-- One call: keys = {the queue's base key}, args = {command, time, ...}. Replies {the command's reply, how many
-- events of pending runs of repeatable jobs wait for the engine}, then, if the call made events, {the number of
-- its last event, how many it made, 1 if they were written to the stream else 0}.
local function entry(keys, args)
  call, pack, unpack, spread, rpcall = redis.call, cmsgpack.pack, cmsgpack.unpack, _G.unpack, redis.pcall
  tonumber, tostring, format, sub = _G.tonumber, _G.tostring, string.format, string.sub
  ARG = args
  if B ~= keys[1] then
    -- a library of functions keeps its locals from call to call: the names are made anew for another queue only,
    -- and the caches are that queue's
    B = keys[1]
    cached = cachesOfQueues.of[B]
    if cached == nil then
      if cachesOfQueues.n >= CACHED_QUEUES then
        cachesOfQueues = { n = 0, of = {} }
      end
      cached = {}
      cachesOfQueues.of[B] = cached
      cachesOfQueues.n = cachesOfQueues.n + 1
    end
    META, JOBS, PAYLOADS, RING, GROUPS, GLIMITS = B .. ':m', B .. ':j', B .. ':p', B .. ':ring', B .. ':g', B .. ':gl'
    PARKED, DELAYED, ACTIVE, EXPIRING, REMEMBERED = B .. ':park', B .. ':d', B .. ':a', B .. ':x', B .. ':ids'
    STATS_GROUPS = B .. ':sg'
    KEPT = { c = B .. ':c', f = B .. ':f' }
    REP_RECORD, REP_VERSION, REP_PAYLOAD = B .. ':rep:r', B .. ':rep:v', B .. ':rep:b'
    REP_PENDING, REP_KIND, REP_TODO = B .. ':rep:p', B .. ':rep:k', B .. ':rep:todo'
  end
  cmd = ARG[1]
  if ARG[2] == '' then
    now = redisTime()
  else
    now = tonumber(ARG[2])
  end
  beginCall()
  local reply
  if SETTLED[cmd] and m('epoch') ~= ARG[#ARG] then
    reply = 'restore'
  else
    reply = run()
  end
  endCall()
  -- meta field 'todo' counts them once meta was read (every changing command reads it); else LLEN
  local todo = meta and mnum('todo', 0) or call('LLEN', REP_TODO)
  if eventsMade == 0 then
    return { reply, todo }
  end
  return { reply, todo, mnum('ev', 0), eventsMade, eventsWritten and 1 or 0 }
end
