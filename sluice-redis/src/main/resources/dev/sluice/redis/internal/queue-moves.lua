-- Moving jobs: a job's state changes (waiting, delayed, finished, removed, remembered), and the counters each
-- change moves (a job's attempts and history: queue-held.lua).
-- Keys: B:w:<g>, B:d, B:a, B:c, B:f, B:x, B:ids, B:j and B:m (through queue-records.lua and queue-meta.lua),
-- B:rep:p and B:rep:todo (runs of repeatable jobs).
-- Cost: O(log n) per job moved.

local collectWaits, collectKept, makeWaiting, waitOrDelay, repeatEvent, removeFinished, finish, leaveActive, failForGood
do -- this file's own locals end with it (see Files in queue-state.lua)
-- Collects the jobs that makeWaiting adds to waiting sets (on: true), or adds those collected, one ZADD per set
-- (on: false). Only while nothing reads a waiting set: add() collects while it inserts its jobs.
function collectWaits(on)
  local collected = buf.waits
  buf.waits = on and {} or false
  if collected and not on then
    for key, scored in pairs(collected) do
      inChunks('ZADD', key, scored, 1000)
    end
  end
end

-- Pushes the ids collected for the kept lists (see collectKept), one LPUSH per list, in the order they finished.
local function flushKept()
  local pending = buf.keptPush
  if pending then
    for s, ids in pairs(pending) do
      if #ids > 0 then
        inChunks('LPUSH', KEPT[s], ids, 1000)
        pending[s] = {}
      end
    end
  end
end

-- Collects the ids of the jobs kept by all that finish() pushes onto the kept lists (on: true), or pushes those
-- collected (on: false). Only while nothing but finish() reads a kept list: the finish command collects while it
-- records its endings, and finish() pushes what it collected before it reads one (a length, an emptiness).
function collectKept(on)
  flushKept()
  buf.keptPush = on and { c = {}, f = {} } or false
end

-- Makes a job wait, ready since readyAt (default now: a delayed job is ready since it came due, though the
-- call that promotes it may come later).
function makeWaiting(id, job, atFront, readyAt)
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
  local score, member = int(-job[R_PRIORITY]), job[R_KEY] .. id
  if buf.waits then
    local collected = listIn(buf.waits, waitingKey(gid))
    collected[#collected + 1] = score
    collected[#collected + 1] = member
  else
    call('ZADD', waitingKey(gid), score, member)
  end
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
function waitOrDelay(id, job, delay)
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
function repeatEvent(id, job, event)
  local repeatId = job[R_REPEAT]
  if repeatId and call('HGET', REP.pending, repeatId) == id then
    call('RPUSH', REP.todo, event .. '|' .. int(job[R_SCHEDULED] or 0) .. '|' .. int(now) .. '|' .. repeatId)
    madd('todo', 1)
  end
end

-- Removes a finished job; its id is remembered for its de-duplication window, if one is left. unlisted: the caller
-- takes it out of its kept list (which is linear in the list's length from its oldest end, where most go).
function removeFinished(id, job, unlisted)
  countKept(groupName(job), job[R_STATE], -1)
  if not unlisted then
    call('LREM', KEPT[job[R_STATE]], -1, id)
  end
  call('ZREM', EXPIRING, id)
  deleteJob(id)
  payloadGone(id)
  remember(id, job)
end

-- Whether a kept list is empty: looked up once per call, then known from what the call did (nil again after a push).
local function keptEmpty(s)
  if buf.keptEmpty[s] == nil then
    flushKept()
    buf.keptEmpty[s] = call('LLEN', KEPT[s]) == 0
  end
  return buf.keptEmpty[s]
end

-- A job of group gid that finished, kept by none, goes at once (as the general way of finish() ends for it).
local function finishUnkept(id, gid)
  deleteJob(id)
  payloadGone(id)
  releaseIfIdle(gid, group(gid))
end

-- Counts n jobs (default 1) of group gid finishing in state s ('c' or 'f'): the queue's total and both statistics.
local function countFinished(gid, s, n)
  n = n or 1
  madd(s == 'c' and 'completed' or 'failed', n)
  countFinish('q', s, n)
  countFinish(gid, s, n)
end

-- Keeps a job that just finished in state s ('c' or 'f') under its retention.
function finish(id, job, s)
  job[R_STATE] = s
  job[R_FINISHED] = now
  local count, age
  if s == 'c' then
    count, age = job[R_KC_N], job[R_KC_AGE]
  else
    count, age = job[R_KF_N], job[R_KF_AGE]
  end
  local kept = KEPT[s]
  countFinished(groupName(job), s)
  held.counted(job, -1)
  if count == 0 and keptEmpty(s) then
    -- kept by none, and none kept that it would evict: it goes at once, as the general way below ends
    finishUnkept(id, groupName(job))
    remember(id, job)
    repeatEvent(id, job, 'ended')
    return
  end
  buf.keptEmpty[s] = nil
  madd('finishes', 1)
  job[R_FINISH] = mnum('finishes', 0) -- the kept lists' order, for pages by cursor (queue-pages.lua)
  countKept(groupName(job), s, 1)
  job[R_CLAIM] = false
  local payload = buf.payloads[id]
  if payload == nil then
    flushGone()
    payload = call('HGET', PAYLOADS, id)
  end
  job[R_PAYLOAD] = payload
  payloadGone(id)
  local length
  if buf.keptPush and count >= KEEP_ALL then
    local ids = buf.keptPush[s]
    ids[#ids + 1] = id
  else
    flushKept()
    length = call('LPUSH', kept, id)
  end
  saveJob(id, job)
  local evict = count < KEEP_ALL and length - count or 0
  if evict > 0 then
    for _, old in ipairs(call('RPOP', kept, evict)) do
      local o = old == id and job or loadJob(old)
      removeFinished(old, o, true)
    end
  end
  if age >= 0 and (evict <= 0 or jobExists(id)) then
    scheduleAt(EXPIRING, now + age, id)
  end
  local g = group(groupName(job))
  releaseIfIdle(groupName(job), g)
  repeatEvent(id, job, 'ended')
end

-- n jobs of group gid are no longer active: the group's and the queue's counts.
local function leftActive(gid, n)
  local g = group(gid)
  g[G_ACTIVE] = g[G_ACTIVE] - n
  touchGroup(gid)
  madd('active', -n)
  jobEnded(gid, g)
end

-- Job id of group gid, started at started, leaves its worker; counted as no longer active unless uncounted (its
-- caller counts it: see held.completed).
local function leaveWorker(id, worker, gid, started, uncounted)
  held.left(id)
  local ofWorker = listIn(buf.activeGone.of, worker)
  ofWorker[#ofWorker + 1] = id
  buf.activeGone.n = buf.activeGone.n + 1
  wake.mayStart = true
  recordBoth(gid, 'p', (now - started) * 1000)
  if not uncounted then
    leftActive(gid, 1)
  end
end

-- Takes a job out of ACTIVE; false if token no longer owns it.
function leaveActive(id, job, token)
  if job == nil or job[R_STATE] ~= 'a' or job[R_TOKEN] ~= token then
    return false
  end
  -- no token owns the job any longer (a token is a number of claims: 0 is none's), and the record stays small
  job[R_TOKEN] = 0
  local worker = lease.worker(job[R_CLAIM] or '')
  job[R_CLAIM] = nil
  leaveWorker(id, worker, groupName(job), job[R_STARTED])
  return true
end

-- Completes job id for token from its attempt alone, its record unread, when nothing of the record is needed:
-- its attempt says token owns it, and no kept completed job is there that finish() would evict. Returns true if it
-- did, nil if the record is needed (nothing changed then). The caller knows that the queue is plain (held.plain()),
-- that no snapshot is wanted and that nothing listens. The counts it moves wait in tally (group -> jobs completed)
-- for held.completed, which the caller calls before anything else reads them.
function held.complete(id, token, tally)
  local h = held.of(id)
  if h == nil or h[held.TOKEN] ~= token or not keptEmpty('c') then
    return nil
  end
  local gid = h[held.GROUP]
  leaveWorker(id, lease.worker(h[held.CLAIM]), gid, h[held.STARTED], true)
  deleteJob(id)
  payloadGone(id)
  tally[gid] = (tally[gid] or 0) + 1
  return true
end

-- Counts the completions of held.complete that tally holds, once per group, as each would have been counted, and
-- empties it.
function held.completed(tally)
  for gid, n in pairs(tally) do
    leftActive(gid, n)
    countFinished(gid, 'c', n)
    releaseIfIdle(gid, group(gid))
    tally[gid] = nil
  end
end


function failForGood(id, job, reason, class, trace)
  job[R_FREASON] = reason
  job[R_FCLASS] = class or false
  job[R_FTRACE] = trace or false
  finish(id, job, 'f')
end
end
