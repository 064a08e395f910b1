-- The commands written out here: renew, progress, owns, get, counts, jobs, pause, paused, remove, retry,
-- retryFailed, clean, drain, groupLimits, groupCounts, and those of repeatable jobs (repGet, repSave, repDel,
-- repList); and add, finish and nextDue put in COMMANDS from the files before. Each is a function of COMMANDS
-- (defined first in queue-stats.lua; the others are in queue-stats.lua, queue-pages.lua (page) and
-- queue-settings.lua), run by entry() with the call's ARG and time set, after what was due was applied (housekeep),
-- except open and the read-only commands (READ_ONLY in queue-entry.lua), which write nothing.
-- Keys: every key of the queue (named in entry()); repeatable jobs: B:rep:r, B:rep:v, B:rep:b, B:rep:p, B:rep:k,
-- B:rep:todo.
-- Cost: a few commands each; renew O(jobs renewed), jobs (a page) O(offset + limit), retryFailed, clean and drain
-- O(jobs moved), groupCounts O(groups held), repList O(repeatable jobs).

COMMANDS.add = add

COMMANDS.finish = finishCommand

-- ARGV: lease, then id and token of each job. Replies 1 or 0 per job: whether its lease still held. The lease of
-- each worker that holds one of them runs for another lease from now.
COMMANDS.renew = function()
  local leaseFor = tonumber(ARG[3])
  local reply, workers = {}, {}
  for i = 4, #ARG, 2 do
    local id, token = ARG[i], tonumber(ARG[i + 1])
    local job = loadJob(id)
    if job and job[R_STATE] == 'a' and job[R_TOKEN] == token then
      workers[lease.worker(job[R_CLAIM] or '')] = true
      reply[#reply + 1] = 1
    else
      reply[#reply + 1] = 0
    end
  end
  for worker in pairs(workers) do
    lease.extend(worker, leaseFor, true)
  end
  return reply
end

-- ARGV: id, token, percent. Replies the snapshot, or nil if the token no longer owns the job.
COMMANDS.progress = function()
  local id, token = ARG[3], tonumber(ARG[4])
  local job = loadJob(id)
  if not job or job[R_STATE] ~= 'a' or job[R_TOKEN] ~= token then
    return false
  end
  job[R_PROGRESS] = tonumber(ARG[5])
  saveJob(id, job)
  emit('progress', id, job, job[R_PROGRESS])
  return snapshot(id, job)
end

COMMANDS.owns = function()
  local job = loadJob(ARG[3])
  return (job and job[R_STATE] == 'a' and job[R_TOKEN] == tonumber(ARG[4])) and 1 or 0
end

COMMANDS.get = function()
  local job = loadJob(ARG[3])
  return job and snapshot(ARG[3], job) or false
end

-- Read-only: the counts as they are once what is due was applied.
COMMANDS.counts = function()
  local d = dueCounts()
  return { mnum('waiting', 0) + d[1], mnum('delayed', 0) + d[2], mnum('active', 0) + d[3],
    call('LLEN', KEPT.c) + d[4], call('LLEN', KEPT.f) + d[5], mnum('added', 0), mnum('completed', 0),
    mnum('failed', 0) + d[6] }
end

COMMANDS.jobs = function()
  return jobsPage(ARG[3], tonumber(ARG[4]), tonumber(ARG[5]))
end

COMMANDS.pause = function()
  mset('paused', ARG[3])
  return 1
end

-- Read-only.
COMMANDS.paused = function()
  return m('paused') == '1' and 1 or 0
end

-- Replies 1 removed, 0 no such job, 'active' for a running job.
COMMANDS.remove = function()
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
end

-- ARGV: id, state ('c' or 'f'). Replies 'ok', 'missing', or the state the job is in.
COMMANDS.retry = function()
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
end

COMMANDS.retryFailed = function()
  local ids = call('LRANGE', KEPT.f, 0, -1)
  for _, id in ipairs(ids) do
    revive(id, loadJob(id), true)
  end
  call('DEL', KEPT.f)
  return #ids
end

-- ARGV: state ('c' or 'f'), age: jobs at least that old go ('none': too long an age, none goes).
COMMANDS.clean = function()
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
end

COMMANDS.drain = function()
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
end

-- ARGV: a group ('' for the ungrouped jobs, whose limits are the defaults). Replies {its concurrency, maxQueued, rate,
-- the queue's concurrency, the queue's rate} (a rate as stored, '' for none).
COMMANDS.groupLimits = function()
  local c, w, rate = limitsOf(ARG[3] == '' and 'u' or 'g' .. ARG[3])
  return { c, w, rate, mnum('concurrency', NEVER), m('rate') or '' }
end

COMMANDS.groupCounts = function()
  local gid = ARG[3] == '' and 'u' or 'g' .. ARG[3]
  local g = findGroup(gid)
  if not g then
    return { 0, 0, 0 }
  end
  return { g[G_WAITING], g[G_DELAYED], g[G_ACTIVE] }
end

-- ARGV: id. Replies {record or nil, version, template payload or nil, pending run id or nil, now}.
COMMANDS.repGet = function()
  local id = ARG[3]
  return { call('HGET', REP.record, id), tonumber(call('HGET', REP.version, id) or '0'),
    call('HGET', REP.payload, id), call('HGET', REP.pending, id), now }
end

-- ARGV: id, the version read, the new record, payload, pending run id ('' none), kind ('d' fixed delay,
-- 'r' other), 1 to take out the pending run read (waiting or delayed) first, how many runs to add, then ADD_FIELDS
-- values per run as add takes them. Replies 'stale' if the version moved on, else {'ok', then the snapshot of
-- each run added}.
COMMANDS.repSave = function()
  local id = ARG[3]
  if tonumber(call('HGET', REP.version, id) or '0') ~= tonumber(ARG[4]) then
    return 'stale'
  end
  if ARG[9] == '1' then
    dropPendingRun(id)
  end
  call('HSET', REP.record, id, ARG[5])
  call('HSET', REP.payload, id, ARG[6])
  call('HINCRBY', REP.version, id, 1)
  call('HSET', REP.kind, id, ARG[8])
  if ARG[7] == '' then
    call('HDEL', REP.pending, id)
  else
    call('HSET', REP.pending, id, ARG[7])
  end
  local reply = { 'ok' }
  for i = 0, tonumber(ARG[10]) - 1 do
    local base = 11 + i * ADD_FIELDS
    local runId = ARG[base]
    if not jobExists(runId) and not call('ZSCORE', REMEMBERED, runId) then
      local payload = insertAt(base, runId)
      reply[#reply + 1] = snapshot(runId, loadJob(runId), payload)
    end
  end
  return reply
end

-- ARGV: id. Takes out a repeatable job and its pending run if that is waiting or delayed. Replies 1, or 0 if
-- there was none.
COMMANDS.repDel = function()
  local id = ARG[3]
  if call('HEXISTS', REP.record, id) == 0 then
    return 0
  end
  dropPendingRun(id)
  call('HDEL', REP.record, id)
  call('HDEL', REP.payload, id)
  call('HDEL', REP.version, id)
  call('HDEL', REP.kind, id)
  return 1
end

-- Replies {id, record, payload, ...} of every repeatable job, by id.
COMMANDS.repList = function()
  local ids = call('HKEYS', REP.record)
  table.sort(ids)
  local reply = {}
  for _, id in ipairs(ids) do
    reply[#reply + 1] = id
    reply[#reply + 1] = call('HGET', REP.record, id)
    reply[#reply + 1] = call('HGET', REP.payload, id)
  end
  return reply
end

COMMANDS.nextDue = nextDue
