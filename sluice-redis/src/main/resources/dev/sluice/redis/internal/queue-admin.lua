-- Administration: a page of jobs by state (jobs), removing a waiting or delayed job, running a finished job
-- again (retry, retryFailed), and dropping the pending run of a repeatable job; the commands of
-- queue-commands.lua call them.
-- Keys: B:w:<g>, B:d, B:a, B:c, B:f, B:x, B:g, B:ring, B:rep:p.
-- Cost: a page is O(log n + limit) for delayed jobs, O(groups + log n + limit) for waiting ones, O(active) for
-- active ones and O(offset + limit) for kept finished ones (a list: Redis walks it in nodes of up to 128).

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
    -- whole groups before the page are skipped by their size, so a page costs O(groups + log n + limit)
    local skip = offset
    for _, gid in ipairs(order) do
      local key = waitingKey(gid)
      local size = call('ZCARD', key)
      if skip >= size then
        skip = skip - size
      else
        for _, member in ipairs(call('ZRANGE', key, skip, skip + limit - #ids - 1)) do
          ids[#ids + 1] = sub(member, 17)
        end
        skip = 0
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
    for _, worker in ipairs(call('ZRANGE', ACTIVE, 0, -1)) do
      for _, id in ipairs(call('SMEMBERS', lease.held(worker))) do
        local job = loadJob(id)
        all[#all + 1] = { id, job[R_STARTED], job[R_SEQ] }
      end
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
    ids = call('LRANGE', key, offset, offset + limit - 1)
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
  held.counted(job, -1)
  deleteJob(id)
  payloadGone(id)
  releaseIfIdle(gid, g)
  repeatEvent(id, job, 'removed')
  emit('removed', id)
end

-- Takes a finished job out of the kept ones and makes it wait again, its counts reset. unlisted: as for
-- removeFinished.
local function revive(id, job, unlisted)
  countKept(groupName(job), job[R_STATE], -1)
  if not unlisted then
    call('LREM', KEPT[job[R_STATE]], -1, id)
  end
  if job[R_PAYLOAD] then
    flushGone()
    call('HSET', PAYLOADS, id, job[R_PAYLOAD])
  end
  job[R_PAYLOAD] = nil
  call('ZREM', EXPIRING, id)
  job[R_FINISHED] = 0
  job[R_RESULT] = false
  job[R_MADE] = 0
  job[R_RLIMITS] = 0
  job[R_STALLS] = 0
  job[R_FREASON] = false
  job[R_FCLASS] = false
  job[R_FTRACE] = false
  held.counted(job, 1)
  makeWaiting(id, job, false)
  saveJob(id, job)
end

-- Forgets the pending run of repeatable job id, and takes it out if it is waiting or delayed (a running one
-- finishes); no event is listed for it, since it is no longer the pending run.
local function dropPendingRun(id)
  local pending = call('HGET', REP.pending, id)
  call('HDEL', REP.pending, id)
  local job = pending and loadJob(pending)
  if job and (job[R_STATE] == 'w' or job[R_STATE] == 'd') then
    removeUnstarted(pending, job)
  end
end
