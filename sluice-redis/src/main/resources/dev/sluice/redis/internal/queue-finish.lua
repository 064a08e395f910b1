-- Finishing jobs: the finish command records a batch of endings (completed, failed, retried, rate-limited, run
-- again, interrupted), puts back the claims of lost replies, then claims the next jobs.
-- Keys: B:a, B:j, B:p, B:c, B:f, B:x, B:w:<g>, B:d, B:ring, B:m, B:ev (through the moves, claims and events).
-- Cost: O(log n) per job moved; releaseLostClaims O(active jobs).

local finishCommand
do -- this file's own locals end with it (see Files in queue-state.lua)
-- finish: ARGV = how many endings, then each ending: id, token, how ('c' completed, 'f' failed, 'r'
-- rate-limited, 'o' overloaded, 'a' run again, 'i' interrupted), whether to reply the job's snapshot ('1') or not
-- ('0'), then per kind: c: result ('' none, else '=' .. bytes); f:
-- outcome, reason, class, trace, retry delay (-1: fail now); r: scope ('GROUP' or 'QUEUE'), retry-after, note; o: scope,
-- the wait (the retry-after spread, see AttemptRules.spread), note, the retry-after;
-- a: delay; i: reason. Adaptive rates hear the endings first (queue-adaptive.lua). Then how many jobs to claim next, lease, maxStalls, the claims' reference (the caller's
-- name for this call: each job claimed carries it while active), how many references of the caller's earlier
-- calls whose replies it lost follow, and those references. The endings are recorded in order, then the jobs
-- that the lost calls claimed go back to waiting (releaseLostClaims), then the claims are made; their wait and processing times and completions per second are the caller's to record
-- (statsAdd). Replies {next due, 1 if an ending left nothing waiting, delayed or active (before the claims) else
-- 0, the time, then per ending: 1 if its token still owned the job else 0, the job as it ended (if asked: see
-- endOne()) or false,
-- what happened ('completed', 'failed', 'retrying', 'rate-limited', 'rescheduled', 'interrupted', ''); then the
-- jobs claimed, each {id, when it became ready, payload, the job's record as the call wrote it} (see claim())}.
-- How many arguments each kind of ending has after its id, token, kind and snapshot flag.
local ENDING_ARGS = { c = 1, f = 5, r = 3, o = 4, a = 1, i = 1 }

-- The ids of this call's endings that may complete without their records (held.complete): in a plain queue, while
-- nothing listens, completions of jobs whose attempts are in B:j and whose snapshots are not wanted.
local quick = {}

-- The quick completions' counts not yet moved (see held.completed): moved before any other ending and at the end.
local tally = {}

-- Records the ending whose arguments begin at ARG[at]; appends its three reply values. Returns whether it owned
-- the job, and where the next ending's arguments begin. The payload of an ending whose snapshot is wanted was read
-- into buf.payloads when the call began.
local function endOne(at, reply)
  local id, token, how, wanted = ARG[at], tonumber(ARG[at + 1]), ARG[at + 2], ARG[at + 3] == '1'
  local arg = at + 4
  if quick[id] and held.complete(id, token, tally) then
    emit('completed', id)
    reply[#reply + 1] = 1
    reply[#reply + 1] = false
    reply[#reply + 1] = 'completed'
    return true, arg + ENDING_ARGS[how]
  end
  held.completed(tally)
  local job = loadJob(id)
  local owned = leaveActive(id, job, token)
  local payload = owned and wanted and buf.payloads[id]
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
    elseif (how == 'r' or how == 'o') and job[R_RLIMITS] >= job[R_MAX_RL] then
      endAttempt(job, 'RATE_LIMITED', ARG[arg + 2])
      failForGood(id, job, 'rate limited ' .. (job[R_RLIMITS] + 1) .. ' times, more than maxRateLimits '
          .. job[R_MAX_RL])
      happened = 'failed'
    elseif how == 'r' then
      local scope, after, note = ARG[arg], tonumber(ARG[arg + 1]), ARG[arg + 2]
      endAttempt(job, 'RATE_LIMITED', note)
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
    elseif how == 'o' then
      endAttempt(job, 'RATE_LIMITED', ARG[arg + 2])
      job[R_RLIMITS] = job[R_RLIMITS] + 1
      waitOrDelay(id, job, tonumber(ARG[arg + 1]))
      saveJob(id, job)
      happened = 'rate-limited'
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
    emit(happened, id, job, ARG[arg], tonumber(how == 'o' and ARG[arg + 3] or ARG[arg + 1])) -- the retry-after given
  elseif happened == 'rescheduled' then
    emit(happened, id, job, tonumber(ARG[arg]))
  elseif happened == 'completed' or happened == 'failed' then
    emit(happened, id, job)
  end
  reply[#reply + 1] = owned and 1 or 0
  -- the job as this ending left it: {payload (false when the record holds it, as a kept job's does), its record
  -- packed now (a later change in this call must not show)}
  local ended = false
  if owned and wanted then
    ended = { payload, pack(job) }
    if job[R_PAYLOAD] then
      ended[1] = false
    end
  end
  reply[#reply + 1] = ended
  reply[#reply + 1] = happened
  return owned, arg + ENDING_ARGS[how]
end

-- Puts back to waiting, at the front, the active jobs that calls whose claim references are in refs claimed: their
-- worker never learned it had them (the reply was lost), so they ran nowhere; no stall is counted. O(active jobs
-- of the workers that made those calls).
local function releaseLostClaims(refs)
  local workers = {}
  for ref in pairs(refs) do
    workers[lease.worker(ref)] = true
  end
  for worker in pairs(workers) do
    for _, id in ipairs(call('SMEMBERS', lease.held(worker))) do
      local job = loadJob(id)
      if job and job[R_CLAIM] and refs[job[R_CLAIM]] and leaveActive(id, job, job[R_TOKEN]) then
        endAttempt(job, 'INTERRUPTED', 'its worker lost the reply of the call that claimed it')
        makeWaiting(id, job, true)
        saveJob(id, job)
      end
    end
  end
end

-- Tells the adaptive rates the endings of this call whose tokens still own their jobs, before any is recorded: their
-- events come before the endings' own, which the caller builds from the reply.
local function hearEndings()
  adaptive.begin()
  local at = 4
  for _ = 1, tonumber(ARG[3]) do
    local id, token, how = ARG[at], tonumber(ARG[at + 1]), ARG[at + 2]
    local job = loadJob(id)
    if job and job[R_STATE] == 'a' and job[R_TOKEN] == token then
      local refusal = how == 'r' or how == 'o'
      local after = how == 'r' and tonumber(ARG[at + 5]) or how == 'o' and tonumber(ARG[at + 7]) or 0
      adaptive.ended(job, how, ARG[at + 4], refusal and ARG[at + 4] or nil, after)
    end
    at = at + 4 + ENDING_ARGS[how]
  end
  adaptive.save()
end

function finishCommand()
  local reply = { 0, 0, now }
  local at = 4
  deferred = true
  local anyOwned = false
  local ids, hows, wanted = {}, {}, {}
  for _ = 1, tonumber(ARG[3]) do
    ids[#ids + 1] = ARG[at]
    hows[#hows + 1] = ARG[at + 2]
    wanted[#wanted + 1] = ARG[at + 3] == '1'
    at = at + 4 + ENDING_ARGS[ARG[at + 2]]
  end
  quick = {}
  local records = ids
  local adapting = adaptive.on()
  if held.plain() and not events.listened() and not adapting then
    held.read(ids)
    records = {}
    for k = 1, #ids do
      if hows[k] == 'c' and not wanted[k] and held.of(ids[k]) then
        quick[ids[k]] = true
      else
        records[#records + 1] = ids[k]
      end
    end
  end
  prefetchJobs(records)
  if adapting then
    hearEndings()
  end
  -- an active job's payload is in B:p until it ends: those of the wanted snapshots, and of the jobs that a
  -- completion or failure may keep (finish() moves a kept job's payload into its record), are read at once
  local read = {}
  for k = 1, #ids do
    local job = not quick[ids[k]] and buf.jobs[ids[k]]
    if wanted[k] or job and (hows[k] == 'c' and job[R_KC_N] ~= 0 or hows[k] == 'f' and job[R_KF_N] ~= 0) then
      read[#read + 1] = ids[k]
    end
  end
  if #read > 0 then
    flushGone()
    local payloads = inChunks('HMGET', PAYLOADS, read, 1000)
    for k = 1, #read do
      buf.payloads[read[k]] = payloads[k]
    end
  end
  at = 4
  collectKept(true)
  for _ = 1, tonumber(ARG[3]) do
    local owned
    owned, at = endOne(at, reply)
    anyOwned = anyOwned or owned
  end
  held.completed(tally)
  collectKept(false)
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
end
