-- Adding jobs: insertAt() adds one from the 16 values of ARGV at a base (also used by repSave), add() the
-- command.
-- Keys: B:j, B:p, B:ids (de-duplication), B:w:<g> or B:d, B:m and B:g (counters, bounds), B:ev (events).
-- add: ARG[3] = how many jobs ('w' after the number: the producer waits for room, see queue-claim.lua; 'i': how many
-- adds, each on its own, see add(); then 's': the producer's process wakes its own idle worker), then 16 values per
-- job (see below). All or none: a job beyond the queue's or
-- its group's bound refuses the whole call ('full'). Replies {'ok', then per job: 1 if it was a duplicate and
-- its snapshot (nil for a duplicate whose job is gone but whose id is remembered), or 0 if added and {its id,
-- its creation time, 'w' waiting or 'd' delayed, when it is due if delayed}: the caller knows the rest of it}.

local insertAt, add
do -- this file's own locals end with it (see Files in queue-state.lua)
-- Adds a new job with id from the 16 values of ARGV at base (as add takes them), counted in its group's totals
-- (written with the call's other counts). Returns its record and payload.
function insertAt(base, id)
  local groupArg = ARG[base + 2]
  local job = {}
  for f = 1, R_CLAIM - 1 do
    job[f] = false -- R_CLAIM, last, stays absent while the job is not active: the record is a byte shorter
  end
  job[R_NAME] = ARG[base + 1]
  job[R_GROUP] = groupArg ~= '' and groupArg or false
  job[R_OPTS] = ARG[base + 3]
  job[R_CREATED] = now
  job[R_SEQ] = 0
  job[R_STARTED] = 0
  job[R_FINISHED] = 0
  job[R_FINISH] = 0 -- unused: the kept lists hold the finish order
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
  countIn(groupName(job), 'add', 1)
  emit('added', id, job)
  return job, payload
end

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
  local reply = { 'ok' }
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
      local job = insertAt(base, id)
      reply[#reply + 1] = 0
      reply[#reply + 1] = { id, now, job[R_STATE], job[R_STATE] == 'd' and job[R_RUNAT] or false }
    end
  end
  return reply
end

function add()
  -- the count, then 'w' if the producer waits for room should the queue be full, or 'i' if the count is of adds
  -- (of one or more producers) made each on its own, in order, all or none within each: then each add is its
  -- job count and its jobs' values, and the reply {'each', then each add's reply}. Last, 's' if the producer's
  -- process wakes an idle worker of its own for what the call adds: the call then wakes no other process
  local spec = ARG[3]
  wake.ownWakes = sub(spec, -1) == 's'
  if wake.ownWakes then
    spec = sub(spec, 1, -2)
  end
  local how = sub(spec, -1)
  local count = tonumber((how == 'w' or how == 'i') and sub(spec, 1, -2) or spec)
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
end
