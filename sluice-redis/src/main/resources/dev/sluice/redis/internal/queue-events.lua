-- Replies and events: a job's snapshot as the engine reads it, emit() (records an event), and nextDue().
-- Keys: B:ev (the events stream), B:listening, B:m ('ev', the event numbers; 'due'), B:p (payloads).
--
-- Events: every event a listener hears (added, active, progress, completed, retrying, failed, rate-limited,
-- rescheduled, drained), and 'removed' (a waiting or delayed job taken out, for whoever waits for its outcome),
-- takes the next number of the queue's event sequence (field 'ev' of B:m), whether anyone listens or not. While
-- B:listening exists, the call also appends its events, in the same atomic call, to the stream B:ev, all in one
-- entry whose id is 0-<the number of its last event>: one event in field 'e', a MessagePack array {kind, job id or
-- false, the job's snapshot without its payload or false, then per kind: progress: percent; retrying: delay (us),
-- error class or false, error message or false; rate-limited: scope, retry-after (us); rescheduled: delay (us)};
-- several in field 'b', a MessagePack array of such arrays, each packed on its own, in the order of their
-- numbers (the entry's id is the last). About 175 bytes of Redis memory per event for a job without a long result
-- or stack trace. The stream keeps about the last events of the number B:listening holds (XADD MINID ~ on their
-- numbers: Redis trims whole nodes, of at most 100 entries or 4 KB, and whole entries, so it keeps some more),
-- so it holds the newest events only; a reader that finds the number it needs next gone knows exactly how many it missed, and numbers
-- missing because nobody listened when they happened count as missed too. A process's own events reach its
-- listeners from the reply (entry() gives the call's last number and how many it made), the others' from the
-- stream, merged by number. Cost: one GET per call that makes events; while listened, one XADD per call.

local STATES = { w = 'WAITING', d = 'DELAYED', a = 'ACTIVE', c = 'COMPLETED', f = 'FAILED' }

-- A job as the engine reads it, one value per field in this order (attempts: each {number, started, ended,
-- outcome, error}; absent values are nil), named as SnapshotField.java names them (SnapshotFieldTest checks both):
-- snapshot fields: id name payload group state options attemptsMade rateLimits createdAt runAt startedAt finishedAt
--   progress result failureReason failureClass failureTrace token attempts stalls repeatId scheduledAt
-- (a claim replies the job's record instead: see claim())
local function snapshot(id, job, payload)
  if payload == nil then
    payload = job[R_PAYLOAD]
  end
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


-- In this call: cap, nil until looked at, false when nobody listens, else the stream's cap; made, how many events it
-- made; written, whether it appended them to the stream.
local events = { made = 0, written = false }

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

-- Whether some process listens to the queue (B:listening): looked up once per call.
function events.listened()
  if events.cap == nil then
    events.cap = tonumber(call('GET', B .. ':listening') or '') or false
  end
  return events.cap ~= false
end

-- Records event kind of job id (nil for drained) with its extra values (see Events above); job may be nil when
-- nothing listens (events.listened()).
emit = function(kind, id, job, ...)
  events.made = events.made + 1
  if not events.listened() then
    return
  end
  -- packed now: a later change of the job in this call must not change what this event tells
  buf.events[#buf.events + 1] = pack({ kind, id or false, job and snapshot(id, job, false) or false, ... })
end

-- Numbers the events of this call (meta 'ev' moves once, by how many it made) and appends them to the stream, in one
-- entry (see Events above).
local function flushEvents()
  if events.made > 0 then
    madd('ev', events.made)
  end
  local packed = buf.events
  if #packed == 0 then
    return
  end
  local field, value = 'e', packed[1]
  if #packed > 1 then
    field, value = 'b', pack(packed)
  end
  local stream = B .. ':ev'
  -- trimmed by number, so that the stream keeps about the last events.cap events however many an entry holds
  local added = rpcall('XADD', stream, 'MINID', '~', '0-' .. int(math.max(0, mnum('ev', 0) - events.cap)),
    '0-' .. m('ev'), field, value)
  if type(added) == 'table' and added.err then
    -- the stream is ahead of the counter (the queue's hash was lost, not the stream): number on after it
    local info = call('XINFO', 'STREAM', stream)
    for i = 1, #info, 2 do
      if info[i] == 'last-generated-id' then
        mset('ev', int(tonumber(string.match(info[i + 1], '%d+$')) + #packed))
      end
    end
    rpcall('XADD', stream, 'MINID', '~', '0-' .. int(math.max(0, mnum('ev', 0) - events.cap)), '0-' .. m('ev'),
      field, value)
  end
  events.written = true
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
