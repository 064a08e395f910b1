-- Claiming: claimOne() starts the next job that may start now (queue and group pause, concurrency and rates,
-- the ring's order), claim() a batch of them for the claiming part of finish; and waking waiting processes
-- (noteOrWake) at the end of a call, as below.
-- Keys: B:ring, B:w:<g>, B:park, B:a and B:a:<w> (the worker's lease and its jobs), B:j and B:p (records, attempts
-- and payloads, read once for the batch), B:m ('wt', 'rw', 'tokens'), B:mk and B:rm (the wake-up markers); the rate
-- state through queue-rates.lua.
-- Cost: per claim call, one SADD of the jobs to their worker's, at most one ZADD of its lease (lease.extend), one
-- HMGET each of the records and payloads; per group served the ring's LMOVE and a ZPOPMIN (in a ring of one group
-- without rates: one LLEN, no LMOVE, one ZPOPMIN for as many jobs as may start). In a plain queue (held.plain())
-- no record unpacked or written, unless a listener hears the jobs start; otherwise each one unpacked and written.
--
-- Idle workers: a claim call that starts fewer jobs than it asked for (nothing more may start now) notes in
-- meta field 'wt' that idle workers wait until at least Redis's time + WAIT_HORIZON; a worker renews that by
-- claiming again at least that often. While 'wt' lies ahead, a call after which a job may start that could not
-- before (a job waiting, a group back in the ring, a job leaving active, pause or limits changed) adds the
-- marker B:mk, which wakes one waiting process; a claim call that started all it asked for while more wait adds
-- it again, which wakes the next. A call whose claims fell short adds none: nothing more may start. A worker
-- learns when things fall due (delays, pauses, rates, leases) from its own claims' replies; a call other than a
-- worker's that makes something fall due sooner (a delayed job added) adds the marker too, so that a waiting
-- worker claims and learns it. An add whose process wakes an idle worker of its own ('s', see add()) adds none:
-- that worker's claim passes the word on if more wait. Another process's lease that runs out is found within 5 s of
-- its end.
-- Producers waiting for room do the same with meta field 'rw' and marker B:rm: an add that finds the queue full and
-- waits notes it; a call after which a waiting or delayed job is gone (claimed, removed) or the bounds changed adds
-- the marker while 'rw' lies ahead.

local claim, redisTime, wakeOrNoteWaiting
do -- this file's own locals end with it (see Files in queue-state.lua)
-- What a claim call knows of the ring while it claims (only its claims change the ring then): its length once a
-- second claim asked (nil before), and its one group while it holds one, which a claim then takes without rotating;
-- and next() and leave().
local ring = {}

-- Takes the group at the front of the ring to the back and names it; nil if the ring is empty. A ring of one group is
-- looked up once per call (LLEN, at the second claim) and not rotated after.
ring.next = function()
  if ring.only then
    return ring.only
  end
  if ring.size == 0 then
    return nil
  end
  local gid = call('LMOVE', RING, RING, 'LEFT', 'RIGHT')
  if gid then
    if ring.size == nil and ring.claims > 0 then
      ring.size = call('LLEN', RING)
    end
    if ring.size == 1 then
      ring.only = gid
    end
  end
  ring.claims = ring.claims + 1
  return gid
end

-- Takes the group just rotated to the back out of the ring.
ring.leave = function()
  call('RPOP', RING)
  ring.only = nil
  if ring.size then
    ring.size = ring.size - 1
  end
end

-- The member ("<16 hex order><id>") of the job that starts next in group gid (record g), popped from its waiting
-- set. When the ring holds only this group and no rate applies (limited false), nothing can stop the call's
-- remaining claims (ring.left) from starting there but the counts, so it pops as many as those allow with one
-- ZPOPMIN (and reads their records with one HMGET unless the claims write none: attempts); ring.batch keeps those
-- not taken yet (claim() puts back any left).
ring.pop = function(gid, g, limited, attempts)
  local batch = ring.batch
  if batch == nil or batch.gid ~= gid or batch.next > #batch.members then
    local count = 1
    if ring.only == gid and not limited then
      local conc = limitsOf(gid)
      count = math.max(1, math.min(ring.left, g[G_WAITING], conc - g[G_ACTIVE],
        mnum('concurrency', NEVER) - mnum('active', 0)))
    end
    local popped = call('ZPOPMIN', waitingKey(gid), count)
    batch = { gid = gid, next = 1, members = {}, scores = {} }
    local ids = {}
    for i = 1, #popped, 2 do
      batch.members[#batch.members + 1] = popped[i]
      batch.scores[#batch.scores + 1] = popped[i + 1]
      ids[#ids + 1] = sub(popped[i], 17)
    end
    if #ids > 1 and not attempts then
      prefetchJobs(ids)
    end
    ring.batch = batch
  end
  local member = batch.members[batch.next]
  batch.next = batch.next + 1
  return member
end

-- Puts back in their waiting set the members claim() popped and did not start (none, as ring.pop counts them).
ring.putBack = function()
  local batch = ring.batch
  ring.batch = nil
  if batch == nil or batch.next > #batch.members then
    return
  end
  local back = {}
  for i = batch.next, #batch.members do
    back[#back + 1] = batch.scores[i]
    back[#back + 1] = batch.members[i]
  end
  call('ZADD', waitingKey(batch.gid), spread(back))
end

-- Starts the jobs of members[from..to], popped from group gid's waiting set (record g), appending their replies to
-- reply (see claim()), the counts moved once for all; returns how many.
local function start(gid, g, members, from, to, maxStalls, ref, attempts, reply)
  local k = to - from + 1
  wake.roomFreed = true
  g[G_WAITING] = g[G_WAITING] - k
  if g[G_WAITING] == 0 then
    ring.leave()
    g[G_INRING] = 0
  end
  touchGroup(gid)
  madd('waiting', -k)
  g[G_ACTIVE] = g[G_ACTIVE] + k
  madd('active', k)
  -- tokens no claim of this queue had: its numbers of claims
  local token = mnum('tokens', 0)
  madd('tokens', k)
  for i = from, to do
    local id = sub(members[i], 17)
    token = token + 1
    if attempts then
      held.put(id, { token, now, maxStalls, ref, gid })
      reply[#reply + 1] = { id, false, false, false, token, now } -- claim() completes it (records, payloads)
    else
      local job = loadJob(id)
      job[R_STATE], job[R_TOKEN], job[R_STARTED], job[R_PROGRESS] = 'a', token, now, 0
      job[R_MAXSTALLS], job[R_CLAIM] = maxStalls, ref
      startAttempt(job)
      saveJob(id, job)
      emit('active', id, job)
      local claimed = { id, job[R_READY], false, false } -- claim() adds the payload, endCall() the record
      buf.claimed[#buf.claimed + 1] = claimed
      reply[#reply + 1] = claimed
      -- what only a waiting job needs goes: it comes again when the job waits again (makeWaiting)
      job[R_READY], job[R_KEY] = false, false
    end
  end
  return k
end

-- Starts the next job that may start now (or the rest of a batch ring.pop took, up to ring.left), appending to reply;
-- returns how many, 0 if none may. The queue's pause and rate are claim()'s to check, once per call. attempts: the
-- claim starts attempts in B:j and leaves the record as it is (claim() completes its reply), else writes it active.
local function claimOne(leaseFor, maxStalls, ref, rate, rateScope, attempts, reply)
  if mnum('waiting', 0) == 0 or mnum('active', 0) >= mnum('concurrency', NEVER) then
    return 0
  end
  local batch = ring.batch
  if not rate and batch and batch.gid == ring.only and batch.next <= #batch.members then
    -- the rest of a batch ring.pop took within the group's and the queue's limits, with no rate: no other look
    local from, to = batch.next, math.min(#batch.members, batch.next + ring.left - 1)
    batch.next = to + 1
    return start(batch.gid, findGroup(batch.gid), batch.members, from, to, maxStalls, ref, attempts, reply)
  end
  if rate then
    local may, wait = callRates.allows(rateScope, rate, mnum('pausedUntil', -NEVER))
    if not may then
      mset('rateBlocked', int(now + wait))
      return 0
    end
  end
  while true do
    -- the group at the front goes to the back, where it stays if it starts a job and has more waiting: one
    -- command for the common case, a second (RPOP) to take it out of the ring otherwise
    local gid = ring.next()
    if not gid then
      return 0
    end
    local g = findGroup(gid)
    if not (g and g[G_INRING] == 1) then
      ring.leave()
    else
      local where = place(gid, g)
      local groupRate, groupScope = '', nil
      if where == 'ready' then
        local _, _, ownRate, ownScope = limitsOf(gid)
        groupRate, groupScope = ownRate, ownScope
        if groupRate ~= '' then
          local may, wait = callRates.allows(groupScope, groupRate, g[G_PAUSED])
          if may then
            callRates.took(groupScope)
          else
            where = 'rate'
            g[G_PARKED] = now + wait
            scheduleAt(PARKED, math.max(g[G_PAUSED], g[G_PARKED]), gid)
          end
        end
      end
      if where == 'ready' then
        if rate then
          callRates.took(rateScope)
        end
        local member = ring.pop(gid, g, rate or groupRate ~= '', attempts)
        return start(gid, g, { member }, 1, 1, maxStalls, ref, attempts, reply)
      end
      ring.leave()
      g[G_INRING] = 0
      touchGroup(gid)
      if where == 'held' then
        g[G_HELD] = 1
      elseif where == 'parked' then
        scheduleAt(PARKED, math.max(g[G_PAUSED], g[G_PARKED] or -NEVER), gid)
      end
    end
  end
end

-- Claims up to n jobs, appending to reply, for each, {id, false, payload, record, token, started} in a plain queue:
-- the record as it reads while the job waits, which the engine makes active with the token and start of the attempt
-- (JobRecord.activated) as held.attach does; otherwise {id, when it became ready, payload, record}: the record as
-- this call writes it (put in by endCall()). The engine decodes the record instead of a snapshot. Their leases,
-- payloads, and records or attempts are written and read together, one command for all.
function claim(n, leaseFor, maxStalls, ref, reply)
  local first = #reply + 1
  callRates.of, callRates.clock = {}, nil
  ring.only, ring.size, ring.claims, ring.batch, ring.left = nil, nil, 0, nil, n
  local open = m('paused') ~= '1' and mnum('pausedUntil', -NEVER) <= now and mnum('rateBlocked', -NEVER) <= now
  local rate, rateScope = m('rate'), 'q:' .. int(mnum('rgq', 0))
  local attempts = held.plain()
  while open and ring.left > 0 do
    local started = claimOne(leaseFor, maxStalls, ref, rate, rateScope, attempts, reply)
    if started == 0 then
      break
    end
    ring.left = ring.left - started
  end
  ring.putBack()
  if #reply - first + 1 < n then
    wake.waitNoted = true
  end
  callRates.settle()
  if #reply < first then
    return
  end
  if not wake.waitNoted and mnum('waiting', 0) > 0 then
    wake.mayStart = true
  end
  local ids = {}
  for i = first, #reply do
    ids[#ids + 1] = reply[i][1]
  end
  -- after the jobs that left their worker in this call (flushGone): one of them may be claimed again
  flushGone()
  local worker = lease.worker(ref)
  inChunks('SADD', lease.held(worker), ids, 1000)
  lease.extend(worker, leaseFor)
  local payloads = inChunks('HMGET', PAYLOADS, ids, 1000)
  if not attempts then
    for k = 1, #ids do
      reply[first + k - 1][3] = payloads[k]
    end
    return
  end
  held.replies(ids, payloads, reply, first, events.listened())
end

-- Redis's own time (TIME), epoch microseconds.
function redisTime()
  local t = call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- Redis's own time: the call's time unless a test clock gave it.
local function redisNow()
  if ARG[2] == '' then
    return now
  end
  return redisTime()
end

-- Notes that some process waits (in meta field), or wakes one that waits (its marker) if this call did what it
-- waits for (see Idle workers above).
local function noteOrWake(noted, happened, field, marker)
  if noted then
    local until_ = redisNow() + WAIT_HORIZON
    if until_ - 1000000 > mnum(field, 0) then
      mset(field, int(until_))
    end
  elseif happened and mnum(field, 0) > 0 and mnum(field, 0) > redisNow() then
    call('ZADD', B .. marker, 0, '0')
  end
end

function wakeOrNoteWaiting()
  local started = wake.mayStart or (wake.dueLowered and cmd ~= 'finish')
  noteOrWake(wake.waitNoted, started and not wake.ownWakes, 'wt', ':mk')
  noteOrWake(wake.roomNoted, wake.roomFreed, 'rw', ':rm')
end
end
