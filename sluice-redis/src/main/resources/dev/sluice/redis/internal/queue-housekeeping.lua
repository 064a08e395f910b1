-- Housekeeping, applied at the start of every command but open and the read-only ones: promotes due delayed jobs,
-- brings back groups whose pause ended, recovers jobs whose lease ran out, expires kept jobs and forgets remembered
-- ids; only when something is due (meta field 'due' holds the earliest time). dueCounts() tells the read-only
-- commands what it would change in the counts, without writing.
-- Keys: B:d, B:park, B:a, B:x, B:ids (the timed sorted sets), and what the moves of queue-moves.lua touch.
-- Cost: O(log n) per job that falls due; dueCounts O(log n) for the delayed jobs and as housekeep for the others.

local housekeep, dueCounts
do -- this file's own locals end with it (see Files in queue-state.lua)
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

-- The lease of worker ran out: each active job it held goes back to waiting, or fails after too many stalls.
local function stalled(worker)
  local key = lease.held(worker)
  for _, id in ipairs(call('SMEMBERS', key)) do
    local job = loadJob(id)
    if job and lease.worker(job[R_CLAIM] or '') == worker and leaveActive(id, job, job[R_TOKEN]) then
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
  flushGone()
  call('DEL', key)
  call('ZREM', ACTIVE, worker)
  madd('lg', 1)
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

-- ARGV: id. Makes a delayed job waiting now (JobQueue.promote). Replies 'ok', 'missing', or the letter of the state
-- the job is in (w, a, c, f).
COMMANDS.promote = function()
  local id = ARG[3]
  local job = loadJob(id)
  if not job then
    return 'missing'
  elseif job[R_STATE] ~= 'd' then
    return job[R_STATE]
  end
  local _, promoted = promote(job[R_KEY] .. id, now)
  repeatEvent(id, promoted, 'due')
  return 'ok'
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

function housekeep()
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
  for _, worker in ipairs(call('ZRANGEBYSCORE', ACTIVE, '-inf', now, 'LIMIT', 0, 1000)) do
    stalled(worker)
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

-- What the stalled jobs failing (pairs {id, record}, in the order housekeep fails them) do to the kept failed
-- jobs, as finish() pushes each onto B:f and pops what its retention count leaves over: the ids they evict from its
-- tail (a set) and how many, how many more are kept after, and the ids of those kept with a retention age of 0
-- (they expire in the same housekeeping).
local function keptFailures(failing)
  local length, pushed, atOnce = call('LLEN', KEPT.f), {}, {}
  local original = length
  for _, job in ipairs(failing) do
    local count = job[2][R_KF_N]
    if count > 0 or length > 0 then
      pushed[#pushed + 1] = job
      length = length + 1
      if count < KEEP_ALL and length > count then
        length = count
      end
    end
  end
  local fromOriginal = math.min(original, original + #pushed - length)
  local evicted = {}
  if fromOriginal > 0 then
    for _, id in ipairs(call('LRANGE', KEPT.f, original - fromOriginal, original - 1)) do
      evicted[id] = true
    end
  end
  local stay = length - (original - fromOriginal)
  for i = #pushed - stay + 1, #pushed do
    if pushed[i][2][R_KF_AGE] == 0 then
      atOnce[#atOnce + 1] = pushed[i][1]
    end
  end
  return evicted, fromOriginal, length - original, atOnce
end

-- What housekeep() would change in the counts if it ran now: {waiting, delayed, active, kept completed, kept
-- failed, failed in all}, each a difference, within the same bounds of 1,000 per kind. Writes nothing.
function dueCounts()
  if mnum('due', -NEVER) > now then
    return { 0, 0, 0, 0, 0, 0 }
  end
  local promoted = math.min(call('ZCOUNT', DELAYED, '-inf', now), 1000)
  local waiting, active, failing = promoted, 0, {}
  for _, worker in ipairs(call('ZRANGEBYSCORE', ACTIVE, '-inf', now, 'LIMIT', 0, 1000)) do
    for _, id in ipairs(call('SMEMBERS', lease.held(worker))) do
      local job = loadJob(id)
      if job and job[R_STATE] == 'a' and lease.worker(job[R_CLAIM] or '') == worker then
        active = active - 1
        if job[R_STALLS] + 1 > job[R_MAXSTALLS] then
          failing[#failing + 1] = { id, job }
        else
          waiting = waiting + 1
        end
      end
    end
  end
  local evicted, evictedCount, keptFailed, atOnce = keptFailures(failing)
  local kept = { c = 0, f = keptFailed }
  local expiring = call('ZRANGEBYSCORE', EXPIRING, '-inf', now, 'LIMIT', 0, 1000 + evictedCount)
  local left = 1000
  for i = 1, #expiring + #atOnce do
    local id = expiring[i] or atOnce[i - #expiring]
    if left > 0 and not evicted[id] then
      left = left - 1
      local job = i > #expiring and { [R_STATE] = 'f' } or loadJob(id)
      if job and kept[job[R_STATE]] then
        kept[job[R_STATE]] = kept[job[R_STATE]] - 1
      end
    end
  end
  return { waiting, -promoted, active, kept.c, kept.f, #failing }
end
end
