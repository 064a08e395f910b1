-- Attempts and plain queues: history(), startAttempt() and endAttempt() keep the attempts a record lists; and
-- active jobs' attempts: see Active jobs in queue-state.lua. B:j's field "\255<id>" (a byte no job
-- id holds: ids are UTF-8) holds job id's attempt while it is active, if a claim of a plain queue started it: a table
-- {token, started, most stalls, claim reference, group name} (positions named by held.TOKEN and the others), packed
-- by encode(). of(id) tells the attempt as this call left it, put() starts it, left() and written() end it, read()
-- reads many ahead, changes() tells what the call changed for the records' writes at its end; attach() makes a
-- record that reads as waiting active from its job's attempt. counts() and counted() keep meta field 'sp', the jobs
-- not finished whose completion needs their record (needsRecord()), and plain() tells whether there are none. In buf: held, id -> the
-- attempt this call put (false: gone); heldRead, id -> the attempt as read, decoded once (false: none).
-- Keys: B:j, B:m ('sp').
-- Cost: an HGET per attempt read alone (one HMGET for many); written with the records (one HSET and one HDEL per
-- call); an attempt's encode() and decode().

local history, startAttempt, endAttempt

do -- this file's own locals end with it (see Files in queue-state.lua)
local MAX_HISTORY = 100 -- Job.MAX_ATTEMPTS_RECORDED: the first attempt and the latest ones
-- A job's attempts: its history (a list of {attempt, started, ended, outcome, error}), one more started, the last
-- ended.
function history(job)
  local h = job[R_HISTORY]
  if h == false or h == nil then
    h = {}
    job[R_HISTORY] = h
  end
  return h
end

function startAttempt(job)
  job[R_ATTEMPTS] = job[R_ATTEMPTS] + 1
  local h = history(job)
  if #h >= MAX_HISTORY then
    table.remove(h, 2)
  end
  h[#h + 1] = { job[R_ATTEMPTS], job[R_STARTED], false, false, false }
end

function endAttempt(job, outcome, err)
  local h = history(job)
  local last = h[#h]
  last[3] = now
  last[4] = outcome
  last[5] = err or false
end

-- The field of B:j that holds job id's attempt.
local function field(id)
  return '\255' .. id
end

-- An attempt as stored: token, started and most stalls as doubles, then the claim reference after its length, then
-- the group name (struct's pack and unpack: a third of MessagePack's cost for these values).
local ATTEMPT = '>dddI4c0'

local function encode(entry)
  local ref = entry[held.CLAIM]
  return struct.pack(ATTEMPT .. 'c0', entry[held.TOKEN], entry[held.STARTED], entry[held.MAXSTALLS], #ref, ref,
    entry[held.GROUP])
end

local function decode(bytes)
  local token, started, maxStalls, ref, rest = struct.unpack(ATTEMPT, bytes)
  return { token, started, maxStalls, ref, sub(bytes, rest) }
end

-- The attempt job id's worker holds, or nil if it is not active (or its record says so itself).
function held.of(id)
  local h = buf.held[id]
  if h ~= nil then
    return h or nil
  end
  local read = buf.heldRead[id]
  if read == nil then
    local bytes = call('HGET', JOBS, field(id))
    read = bytes and decode(bytes) or false
    buf.heldRead[id] = read
  end
  return read or nil
end

-- Reads the attempts of ids with one HMGET (those not read yet).
function held.read(ids)
  local wanted, fields = {}, {}
  for _, id in ipairs(ids) do
    if buf.held[id] == nil and buf.heldRead[id] == nil then
      wanted[#wanted + 1] = id
      fields[#fields + 1] = field(id)
    end
  end
  local read = inChunks('HMGET', JOBS, fields, 1000)
  for k = 1, #wanted do
    buf.heldRead[wanted[k]] = read[k] and decode(read[k]) or false
  end
end

function held.put(id, entry)
  buf.held[id] = entry
end

-- The attempts this call changed, as fields of B:j: {field, value, ...} to set, and fields to delete.
function held.changes()
  local put, gone = {}, {}
  for id, entry in pairs(buf.held) do
    if entry then
      put[#put + 1] = field(id)
      put[#put + 1] = encode(entry)
    else
      gone[#gone + 1] = field(id)
    end
  end
  return put, gone
end

-- Job id leaves active: its attempt goes, if it has one.
function held.left(id)
  if buf.heldRead[id] or buf.held[id] then
    buf.held[id] = false
  end
end

-- Job id's record is written active: it holds the attempt, whose own entry goes.
function held.written(id, job)
  if job[R_STATE] == 'a' and buf.heldRead[id] then
    buf.held[id] = false
  end
end

-- Makes job, whose record reads as waiting, active from its attempt if it has one, as a claim that writes the
-- record would have. JobRecord.activated does the same on the Java side.
function held.attach(id, job)
  if job[R_STATE] ~= 'w' then
    return
  end
  local h = held.of(id)
  if h == nil then
    return
  end
  job[R_STATE] = 'a'
  job[R_TOKEN] = h[held.TOKEN]
  job[R_STARTED] = h[held.STARTED]
  job[R_PROGRESS] = 0
  job[R_MAXSTALLS] = h[held.MAXSTALLS]
  job[R_CLAIM] = h[held.CLAIM]
  -- what only a waiting job needs goes: it comes again when the job waits again (makeWaiting)
  job[R_READY], job[R_KEY] = false, false
  startAttempt(job)
end

-- Completes the replies of the jobs ids that a claim of a plain queue started, from reply[first] on (see claim()),
-- with their payloads and their records as they waited, read with one HMGET; and tells their starts (emit), with the
-- jobs made active if listening.
function held.replies(ids, payloads, reply, first, listening)
  local records = inChunks('HMGET', JOBS, ids, 1000)
  for k = 1, #ids do
    local id, claimed = ids[k], reply[first + k - 1]
    claimed[3] = payloads[k]
    -- a record this call wrote (a job added or ended in it) is not in B:j yet
    local job = buf.dirty[id] and buf.jobs[id]
    claimed[4] = job and pack(job) or buf.fresh[id] or records[k]
    if listening then
      if not job then
        job = unpack(claimed[4])
        buf.jobs[id] = job
      end
      held.attach(id, job)
      if buf.dirty[id] then
        -- the record is written active: the attempt is its
        buf.held[id] = nil
      end
    end
    emit('active', id, job or nil)
  end
end

-- Whether a job completes with its record: it is kept (keptCount, its retention's count of completed jobs, is not
-- 0), has a de-duplication window (dedup, us: -1 for none), or is a run of a repeatable job (repeats).
function held.needsRecord(keptCount, dedup, repeats)
  return keptCount ~= 0 or dedup >= 0 or repeats
end

local function needsRecord(job)
  return held.needsRecord(job[R_KC_N], job[R_DEDUP] or -1, job[R_REPEAT] and true or false)
end

-- Whether meta field 'sp' counts the jobs not finished whose completion needs their record. 'sp' is present only
-- while it counts every such job: it starts at 0 when jobs are coming (coming: true) to a queue that holds none not
-- finished (a queue of an earlier version, or one whose meta hash Redis lost, has none until it empties).
function held.counts(coming)
  local counting = mnum('sp', false) ~= false
  if not counting and coming and mnum('waiting', 0) + mnum('delayed', 0) + mnum('active', 0) == 0 then
    madd('sp', 0)
    counting = true
  end
  return counting
end

-- Counts job, not finished from now on (1) or no longer (-1), in meta field 'sp' if its completion needs its record.
function held.counted(job, delta)
  if held.counts(delta > 0) and needsRecord(job) then
    madd('sp', delta)
  end
end

-- Whether every job of the queue not finished completes without its record: its claims then write none.
function held.plain()
  return mnum('sp', -1) == 0
end
end
