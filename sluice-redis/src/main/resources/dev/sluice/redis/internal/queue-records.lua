-- Records: a call reads and writes what it needs of the queue once, and writes all it changed at its end.
-- Holds the caches kept from call to call (names of keys, and the records of active jobs: hot), the job records
-- (loadJob, saveJob, batched deletes and prefetches), the payloads put and gone (putPayload, payloadGone, written
-- together by flushGone), and the group records (group, touchGroup). The queue's meta hash: queue-meta.lua.
-- Keys: B:j (records), B:p (payloads), B:g (group records), B:a:<w> (leases gone), B:w:<g> (waitingKey names it),
-- the attempts of active jobs (fields of B:j, through queue-held.lua).
-- Cost: an HGET per record read alone (one HMGET per prefetch, and one of the attempts of the records that read as
-- waiting), one HSET and one HDEL per call for the records and attempts it changed, one HSET and one HDEL for the
-- payloads put and gone, one SREM per worker for the leases gone; a record's unpack and pack (a MessagePack array of
-- 34-36 values) per record read and written, unless kept from the call before (hot).

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
-- written once, at the call's end (flushRecords), with one HSET and one HDEL for all. Those of jobs added in the call
-- are in fresh as packed (id -> bytes, see putRecord) until the call reads them.
-- In buf: jobs, dirty and fresh (as said above); activeGone, the ids leaving their worker's B:a:<worker> (of[worker] = ids,
-- n of them in all), and payloadsGone, ids whose payloads go,
-- both taken out together (flushGone) before B:a or B:p is used; keptEmpty, state ('c', 'f') -> whether its kept
-- set is empty (nil: not known); claimed, the replies of the jobs claimed (see claim()), which endCall() completes
-- with their records as packed (packed: id -> bytes); payloads, id -> a payload read ahead from B:p (false: none);
-- payloadsPut, the payloads of jobs added in the call (id, payload, ...), written with one HSET by flushGone after
-- payloadsGone's HDEL; waits, the waiting sets' members collected while add() inserts (see collectWaits), else false.
local buf = {}

-- The records of active jobs as this library last wrote them, decoded, kept from call to call (a library of
-- functions keeps its locals; a script starts afresh): of[JOBS][id] = {bytes, record}, at most hot.most entries
-- (then emptied). A call that reads bytes Redis still holds as written takes the record instead of unpacking them (a
-- job's ending reads what its claim wrote); taken, it is kept again only if the call writes it, so that a call that
-- fails half way leaves nothing it changed behind.
local hot = { n = 0, of = {}, most = 512 }

-- The record of job id whose bytes Redis holds are packed.
function hot.decoded(id, packed)
  local ofQueue = hot.of[JOBS]
  local kept = ofQueue and ofQueue[id]
  if kept then
    ofQueue[id] = nil
    if kept[1] == packed then
      return kept[2]
    end
  end
  return unpack(packed)
end

-- The attempts active jobs' workers hold (fields of B:j): queue-held.lua; its fields in capitals name the positions of an
-- attempt's values.
local held = { TOKEN = 1, STARTED = 2, MAXSTALLS = 3, CLAIM = 4, GROUP = 5 }

local function loadJob(id)
  local job = buf.jobs[id]
  if job == nil then
    local packed = buf.fresh[id] or call('HGET', JOBS, id)
    job = packed and hot.decoded(id, packed) or false
    buf.jobs[id] = job
    if job then
      held.attach(id, job)
    end
  end
  return job or nil
end

-- Job id, added in this call, has the record packed: written at the call's end as it is, unless the call reads it
-- (loadJob) and so writes the table it read.
local function putRecord(id, packed)
  buf.jobs[id] = nil
  buf.fresh[id] = packed
  buf.dirty[id] = true
end

local function saveJob(id, job)
  buf.jobs[id] = job
  buf.dirty[id] = true
  held.written(id, job)
end

local function deleteJob(id)
  buf.jobs[id] = false
  buf.dirty[id] = true
end

local function jobExists(id)
  local job = buf.jobs[id]
  if job == nil then
    return buf.fresh[id] ~= nil or call('HEXISTS', JOBS, id) == 1
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

-- The list map holds under key, made empty if it holds none.
local function listIn(map, key)
  local list = map[key]
  if list == nil then
    list = {}
    map[key] = list
  end
  return list
end

-- Leases are held per worker: B:a orders the workers that hold active jobs by when their lease runs out, and
-- B:a:<worker> holds the ids of a worker's active jobs. A worker is named by the part of its claim references
-- ('<worker>.<number>') before the dot; a job's is its record's R_CLAIM while it is active.
local lease = {}

-- The worker that claim reference ref names.
function lease.worker(ref)
  local dot = string.find(ref, '.', 1, true)
  return dot and sub(ref, 1, dot - 1) or ref
end

-- The set of the active jobs worker holds.
function lease.held(worker)
  return cachedKey(':a:', worker)
end

local function flushGone()
  if buf.activeGone.n > 0 then
    for worker, ids in pairs(buf.activeGone.of) do
      inChunks('SREM', lease.held(worker), ids, 1000)
    end
    buf.activeGone = { n = 0, of = {} }
  end
  if #buf.payloadsGone > 0 then
    inChunks('HDEL', PAYLOADS, buf.payloadsGone, 1000)
    buf.payloadsGone = {}
  end
  if #buf.payloadsPut > 0 then
    inChunks('HSET', PAYLOADS, buf.payloadsPut, 1000)
    buf.payloadsPut = {}
  end
end

-- The payload of job id goes from B:p at the call's end (or before B:p is read in it). The payloads put before it
-- are written first, so that one put and then gone in a call is gone.
local function payloadGone(id)
  if #buf.payloadsPut > 0 then
    flushGone()
  end
  buf.payloadsGone[#buf.payloadsGone + 1] = id
end

-- Job id's payload is payload in B:p from the call's end (or before B:p is read in it).
local function putPayload(id, payload)
  buf.payloadsPut[#buf.payloadsPut + 1] = id
  buf.payloadsPut[#buf.payloadsPut + 1] = payload
end

-- Reads the records of ids into the call's cache with one HMGET (those not read yet), and the attempts of those
-- that read as waiting with one more (see Active jobs in queue-state.lua).
local function prefetchJobs(ids)
  local wanted = {}
  for _, id in ipairs(ids) do
    if buf.jobs[id] == nil and not buf.fresh[id] then
      wanted[#wanted + 1] = id
    end
  end
  local packed = inChunks('HMGET', JOBS, wanted, 1000)
  local waiting = {}
  for k = 1, #wanted do
    local job = packed[k] and hot.decoded(wanted[k], packed[k]) or false
    buf.jobs[wanted[k]] = job
    if job and job[R_STATE] == 'w' then
      waiting[#waiting + 1] = wanted[k]
    end
  end
  if #waiting > 0 then
    held.read(waiting)
    for _, id in ipairs(waiting) do
      held.attach(id, buf.jobs[id])
    end
  end
end

-- Writes the records of hash key whose names dirty holds, from records (name -> record, false: gone; nil: as fresh
-- holds it packed, if it does): one HSET for those kept, one HDEL for those gone, with the fields put ({field, value,
-- ...}) and gone given, if given. Keeps each record it packed in packed (name -> bytes) if given.
local function flushRecords(key, records, dirty, packed, put, gone, fresh)
  put, gone = put or {}, gone or {}
  for name in pairs(dirty) do
    local record = records[name]
    if record then
      local bytes = pack(record)
      put[#put + 1] = name
      put[#put + 1] = bytes
      if packed then
        packed[name] = bytes
      end
    elseif record == nil and fresh and fresh[name] then
      put[#put + 1] = name
      put[#put + 1] = fresh[name]
    else
      gone[#gone + 1] = name
    end
  end
  inChunks('HSET', key, put, 1000)
  inChunks('HDEL', key, gone, 1000)
end

-- Keeps the records of active jobs this call wrote (packed: id -> their bytes) for the next calls.
function hot.keep(packed)
  for id, bytes in pairs(packed) do
    local record = buf.jobs[id]
    if record[R_STATE] == 'a' then
      if hot.n >= hot.most then
        hot.n, hot.of = 0, {}
      end
      local ofQueue = hot.of[JOBS]
      if ofQueue == nil then
        ofQueue = {}
        hot.of[JOBS] = ofQueue
      end
      ofQueue[id] = { bytes, record }
      hot.n = hot.n + 1
    end
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
