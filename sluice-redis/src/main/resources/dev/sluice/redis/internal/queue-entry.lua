-- The entry: run() dispatches a call to its command (the short commands renew, progress, owns, get, counts,
-- pause, paused, remove, retry, retryFailed, clean, drain, groupLimits, groupCounts and those of repeatable jobs,
-- repGet, repSave, repDel, repList, are written out in it; the others are functions of the files before, or in
-- COMMANDS), and entry() makes one call: it names the queue's keys, reads the time, checks the settings' epoch,
-- runs the command and writes what it changed (beginCall, endCall).
-- run() is about 190 lines, kept whole: splitting it would change the dispatch.
-- Keys: every key of the queue (named in entry()); repeatable jobs: B:rep:r, B:rep:v, B:rep:b, B:rep:p, B:rep:k,
-- B:rep:todo.

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
    return { mnum('waiting', 0), mnum('delayed', 0), mnum('active', 0), call('LLEN', KEPT.c), call('LLEN', KEPT.f),
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
    local ids = call('LRANGE', KEPT.f, 0, -1)
    for _, id in ipairs(ids) do
      revive(id, loadJob(id), true)
    end
    call('DEL', KEPT.f)
    return #ids
  elseif cmd == 'clean' then
    -- ARGV: state ('c' or 'f'), age: jobs at least that old go ('none': too long an age, none goes).
    local key = KEPT[ARG[3]]
    if ARG[4] == 'none' then
      return 0
    end
    local cutoff = now - tonumber(ARG[4])
    local kept = call('LRANGE', key, 0, -1)
    prefetchJobs(kept)
    local left = {}
    for _, id in ipairs(kept) do
      local job = loadJob(id)
      if job[R_FINISHED] <= cutoff then
        removeFinished(id, job, true)
      else
        left[#left + 1] = id
      end
    end
    if #left < #kept then
      call('DEL', key)
      inChunks('RPUSH', key, left, 1000)
    end
    return #kept - #left
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
  buf.jobs, buf.dirty, buf.activeGone, buf.payloadsGone, buf.keptEmpty, buf.events = {}, {}, {}, {}, {}, {}
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
  flushEvents()
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
