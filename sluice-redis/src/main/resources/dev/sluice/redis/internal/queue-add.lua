-- Adding jobs: insertAt() adds one from the ADD_FIELDS values of ARGV at a base (also used by repSave), add() the
-- command.
-- Keys: B:j, B:p, B:ids (de-duplication), B:w:<g> or B:d, B:m and B:g (counters, bounds), B:ev (events).
-- add: ARG[3] = how many jobs ('w' after the number: the producer waits for room, see queue-claim.lua; 'i': how many
-- adds, each on its own, see add(); then 's': the producer's process wakes its own idle worker), then ADD_FIELDS
-- values per job (see insertAt). All or none: a job beyond the queue's or its group's bound refuses the whole call ('full').
-- Replies {'ok', the time the jobs were added at, then per job: 1 if it was a duplicate and its snapshot (nil for a
-- duplicate whose job is gone but whose id is remembered), or 0 and its id if added: the caller knows the rest of it
-- (delayed by its delay, if any, from the time added)}. An 'i' call may end its ARGV with a claim for idle slots of the
-- producer's process (how many, lease, most stalls, claim reference, as finish takes them): its reply then ends
-- with the list of jobs claimed, as claim() replies them.
-- Cost per call, however many adds it carries: one HMGET and one ZMSCORE for the ids they give and those the queue
-- would number, one HSET of the payloads, one ZADD per waiting set, the records in the call's one HSET, each
-- group's bound looked up and its added total counted once; per delayed job one ZADD. A record is joined from
-- what the add packed and what the call decides: no table of it is packed (unless listened to).

local insertAt, add, ADD_FIELDS
do -- this file's own locals end with it (see Files in queue-state.lua)
-- Counts n jobs added in group gid ('u' for none) in the queue's and the group's totals.
local function countAdded(gid, n)
  madd('added', n)
  countIn(gid, 'add', n)
end

-- An add's values per job, from its base: 0 id ('' for one the queue numbers), 1 payload, 2 what the call decides
-- with (see decided), then its record packed in parts (AddFields in Java): 3 its head (array header, name, group),
-- 4 options, 5 its tail (R_STARTED to R_SCHEDULED). insertAt packs the values between (R_STATE, and R_CREATED to
-- R_RUNAT) as cmsgpack would, so the record reads as if packed whole.
ADD_FIELDS = 6

local PACKED_STATE = { w = '\161w', d = '\161d' } -- cmsgpack's packing of a one-letter string

-- What an add's text 'delay|priority|kept|dedup|scheduled|group' says (delay and de-duplication window in us, -1 for
-- none; kept: how many completed jobs its retention keeps; scheduled: the time of a repeatable job's run, '' if it is
-- none; group: '' for none): {delay, priority, whether it completes with its record (held.needsRecord), scheduled
-- or false, group or false, its group's name}. Read once per text (jobs added alike share one).
local function decided(text)
  local known = cachedIn(':add')
  local d = known.of[text]
  if d == nil then
    local delay, priority, kept, dedup, scheduled, group =
      string.match(text, '^(%-?%d+)|(%-?%d+)|(%d+)|(%-?%d+)|(%d*)|(.*)$')
    scheduled = scheduled ~= '' and tonumber(scheduled)
    d = { tonumber(delay), tonumber(priority), held.needsRecord(tonumber(kept), tonumber(dedup), scheduled and true),
      scheduled, group ~= '' and group, group ~= '' and 'g' .. group or 'u' }
    known.of[text] = d
    known.n = known.n + 1
  end
  return d
end

-- Adds a new job with id from the values of ARGV at base (as add takes them), counted in its group's totals and in
-- meta 'sp' (written with the call's other counts) unless counted (its caller counts it). Returns its payload.
function insertAt(base, id, counted)
  local d = decided(ARG[base + 2])
  local job = { false, d[5], false, false, now, 0, false, false, false }
  job[R_PRIORITY] = d[2]
  if not counted and held.counts(true) and d[3] then
    madd('sp', 1)
  end
  local payload = ARG[base + 1]
  putPayload(id, payload)
  waitOrDelay(id, job, d[4] and math.max(0, d[4] - now) or d[1])
  putRecord(id, ARG[base + 3] .. PACKED_STATE[job[R_STATE]] .. ARG[base + 4]
    .. pack(now, job[R_SEQ], job[R_KEY], job[R_READY], job[R_RUNAT]) .. ARG[base + 5])
  if not counted then
    countAdded(d[6], 1)
  end
  emit('added', id, events.listened() and loadJob(id) or nil)
  return payload
end

-- Reads the records of ids ahead (one HMGET: jobExists and loadJob then need no command) and notes in remembered
-- whether each is a remembered id (one ZMSCORE): id -> true or false.
local function readAhead(ids, remembered)
  if #ids == 0 then
    return
  end
  prefetchJobs(ids)
  local scores = inChunks('ZMSCORE', REMEMBERED, ids, 1000)
  for k = 1, #ids do
    remembered[ids[k]] = scores[k] and true or false
  end
end

-- Whether id is remembered (removed, and still de-duplicating), as read ahead if it was.
local function isRemembered(id, remembered)
  local r = remembered[id]
  if r == nil then
    r = call('ZSCORE', REMEMBERED, id) and true or false
    remembered[id] = r
  end
  return r
end

-- The highest id that producers gave and the queue could number (digits, no leading zero, short enough for its count
-- to reach), given is the highest of the call's: meta 'hi', which is present only while it bounds every such id of
-- the queue's jobs and remembered ids. It starts at 0 when the queue holds no record and remembers no id (a queue of
-- an earlier version, or one whose meta hash Redis lost, has none until then). Returns false while there is none.
local function givenHigh(given)
  local high = mnum('hi', false)
  if high == false and call('EXISTS', JOBS, REMEMBERED) == 0 then
    high = -1
  end
  if high ~= false and given > high then
    high = given
    mset('hi', int(high))
  end
  return high
end

-- What the adds of a call read ahead, once for all of them (readAhead): the ids they give and the ids the queue would
-- number their jobs without one with (numbered[k], the k-th number after meta 'ids', from), unless those are free
-- (free: above every id producers gave, see givenHigh). spans: the adds' first values and job counts, {first, count,
-- first, count, ...}.
local function readAheadFor(spans)
  local ids, unnamed, given = {}, 0, 0
  local ahead = { remembered = {}, numbered = {}, from = mnum('ids', 0) }
  for k = 1, #spans, 2 do
    for i = 0, spans[k + 1] - 1 do
      local id = ARG[spans[k] + i * ADD_FIELDS]
      if id == '' then
        unnamed = unnamed + 1
      else
        ids[#ids + 1] = id
        if #id <= 15 and string.find(id, '^[1-9]%d*$') then
          given = math.max(given, tonumber(id))
        end
      end
    end
  end
  local high = givenHigh(given)
  ahead.free = high ~= false and ahead.from >= high
  for n = ahead.from + 1, ahead.from + unnamed do
    local id = int(n)
    ahead.numbered[#ahead.numbered + 1] = id
    if not ahead.free then
      ids[#ids + 1] = id
    end
  end
  readAhead(ids, ahead.remembered)
  return ahead
end

-- Adds count jobs whose values begin at ARG[first], all or none, as add replies them; ahead: as readAheadFor read it,
-- with, for all the adds of the call, each group's bound of waiting jobs (groupMax) and the jobs added per group
-- (added, counted in the totals once per call by countAllAdded).
local function addJobs(first, count, waits, ahead)
  local fresh, perGroup, seen, remembered = 0, {}, {}, ahead.remembered
  for i = 0, count - 1 do
    local base = first + i * ADD_FIELDS
    local id = ARG[base]
    if id == '' or (not seen[id] and not jobExists(id) and not isRemembered(id, remembered)) then
      if id ~= '' then
        seen[id] = true
      end
      fresh = fresh + 1
      local g = decided(ARG[base + 2])[6]
      perGroup[g] = (perGroup[g] or 0) + 1
    end
  end
  local max = mnum('maxQueued', NEVER)
  local queued = mnum('waiting', 0) + mnum('delayed', 0)
  if fresh > 0 and queued + fresh > max then
    wake.roomNoted = waits
    return { 'full', '', max, queued, fresh }
  end
  for gid, wanted in pairs(perGroup) do
    local groupMax = ahead.groupMax[gid]
    if groupMax == nil then
      local _, most = limitsOf(gid)
      groupMax = most
      ahead.groupMax[gid] = most
    end
    local g = findGroup(gid)
    local inGroup = g and (g[G_WAITING] + g[G_DELAYED]) or 0
    if inGroup + wanted > groupMax then
      wake.roomNoted = waits
      return { 'full', gid, groupMax, inGroup, wanted }
    end
  end
  local numbered, from = ahead.numbered, ahead.from
  -- the jobs that need their records, counted in 'sp' once for all (see held.counts)
  local reply, counting, needing = { 'ok', now }, held.counts(true), 0
  for i = 0, count - 1 do
    local base = first + i * ADD_FIELDS
    local id = ARG[base]
    local existing = id ~= '' and loadJob(id)
    if existing then
      reply[#reply + 1] = 1
      reply[#reply + 1] = snapshot(id, existing)
    elseif id ~= '' and isRemembered(id, remembered) then
      reply[#reply + 1] = 1
      reply[#reply + 1] = false
    else
      if id == '' then
        repeat
          madd('ids', 1)
          local n = mnum('ids', 0)
          id = numbered[n - from] or int(n)
        until ahead.free or not jobExists(id) and not isRemembered(id, remembered)
      end
      insertAt(base, id, true)
      if counting and decided(ARG[base + 2])[3] then
        needing = needing + 1
      end
      reply[#reply + 1] = 0
      reply[#reply + 1] = id
    end
  end
  if needing > 0 then
    madd('sp', needing)
  end
  local added = ahead.added
  for gid, n in pairs(perGroup) do
    added[gid] = (added[gid] or 0) + n
  end
  return reply
end

local function countAllAdded(ahead)
  for gid, n in pairs(ahead.added) do
    countAdded(gid, n)
  end
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
  local spans = { 4, count }
  local claimAt = nil
  if how == 'i' then
    spans = {}
    local at = 4
    for _ = 1, count do
      local jobs = tonumber(ARG[at])
      spans[#spans + 1] = at + 1
      spans[#spans + 1] = jobs
      at = at + 1 + jobs * ADD_FIELDS
    end
    if #ARG > at then -- the settings' epoch is last (see SETTLED in queue-entry.lua)
      claimAt = at
    end
  end
  local ahead = readAheadFor(spans)
  ahead.groupMax, ahead.added = {}, {}
  -- nothing reads a waiting set while the jobs are inserted: each set's are added at the end, together
  collectWaits(true)
  local reply
  if how ~= 'i' then
    reply = addJobs(4, count, how == 'w', ahead)
  else
    reply = { 'each' }
    for k = 1, #spans, 2 do
      reply[#reply + 1] = addJobs(spans[k], spans[k + 1], false, ahead)
    end
  end
  countAllAdded(ahead)
  collectWaits(false)
  if claimAt then
    -- the producer's process has idle slots of one worker: the call claims for them, as the worker's own claim
    -- would; processes are woken only for what is still waiting after that (the leases it writes lower 'due' only
    -- for the claiming process, which renews them)
    local dueLowered = wake.dueLowered
    wake.mayStart = false
    local claimed = {}
    claim(tonumber(ARG[claimAt]), tonumber(ARG[claimAt + 1]), tonumber(ARG[claimAt + 2]), ARG[claimAt + 3], claimed)
    wake.dueLowered = dueLowered
    reply[#reply + 1] = claimed
  end
  return reply
end
end
