-- The entry: entry() makes one call: it names the queue's keys, reads the time, checks the settings' epoch, runs
-- the command (run(): COMMANDS holds one function per command, see queue-commands.lua) and writes what it changed
-- (beginCall, endCall).
-- Keys: every key of the queue (named in entry()).
-- Cost per call besides its command: TIME (unless a test clock gives the time), the meta hash's HGETALL if the
-- command reads it, and at the end one HSET each for the records (and attempts), group records and meta it changed, one HINCRBY
-- per statistic changed, one XADD while listened.

local entry, READ_ONLY
do -- this file's own locals end with it (see Files in queue-state.lua)
-- The commands that write nothing (Redis functions flagged no-writes, called with FCALL_RO): they skip
-- housekeeping, and report what is due as if it had been applied. QueueScript.READ_ONLY names the same.
READ_ONLY = { counts = true, paused = true }

-- Runs command (the function of COMMANDS named cmd; nil: look it up, as a script does).
local function run(command)
  local named = COMMANDS[cmd]
  if not named or (command and command ~= named) then
    return redis.error_reply('ERR sluice queue script: unknown command "' .. tostring(cmd) .. '"'
      .. (named and ' for this function' or ''))
  end
  if cmd ~= 'open' and not READ_ONLY[cmd] then
    housekeep()
  end
  return named()
end

-- Clears what the last call kept, for the call of command cmd.
local function beginCall()
  meta, metaDirty, metaNumbers, groups, groupsDirty, ownLimits, deferred, counts = nil, {}, {}, {}, {}, {}, false, {}
  buf.jobs, buf.dirty, buf.fresh, buf.payloadsGone, buf.keptEmpty, buf.events = {}, {}, {}, {}, {}, {}
  buf.activeGone = { n = 0, of = {} }
  buf.claimed, buf.packed, buf.payloads, buf.payloadsPut, buf.waits, buf.keptPush = {}, {}, {}, {}, false, false
  buf.held, buf.heldRead = {}, {}
  events.cap, events.made, events.written = nil, 0, false
  wake.mayStart = cmd == 'pause' or cmd == 'limits' or cmd == 'open' or cmd == 'restore'
  wake.roomFreed = cmd == 'limits' or cmd == 'open' or cmd == 'restore'
  wake.waitNoted, wake.dueLowered, wake.roomNoted, wake.ownWakes = false, false, false, false
end

-- Writes what the call changed and kept for its end.
local function endCall()
  wakeOrNoteWaiting()
  flushGone()
  local put, gone = held.changes()
  flushRecords(JOBS, buf.jobs, buf.dirty, buf.packed, put, gone, buf.fresh)
  for _, claimed in ipairs(buf.claimed) do
    claimed[4] = buf.packed[claimed[1]]
  end
  hot.keep(buf.packed)
  flushCounts()
  flushRecords(GROUPS, groups, groupsDirty)
  flushEvents()
  flushMeta()
end

-- The commands that rely on the queue's settings: each carries, as its last argument, the epoch of the settings
-- its process knows, and does nothing but reply 'restore' when the queue's differs (see queue-settings.lua).
local SETTLED = { add = true, finish = true, repSave = true, groupLimits = true }

-- One call: keys = {the queue's base key}, args = {command, time, ...}. Replies {the command's reply, how many
-- events of pending runs of repeatable jobs wait for the engine}, then, if the call made events, {the number of
-- its last event, how many it made, 1 if they were written to the stream else 0}. command: the function of the
-- command args names, given by its registered function (a script gives none: it is looked up by name).
function entry(keys, args, command)
  call, pack, unpack, spread, rpcall = redis.call, cmsgpack.pack, cmsgpack.unpack, _G.unpack, redis.pcall
  tonumber, tostring, format, sub = _G.tonumber, _G.tostring, string.format, string.sub
  ARG = args
  if B ~= keys[1] then
    -- a library of functions keeps its locals from call to call: the names are made anew for another queue only,
    -- and the caches are that queue's
    B = keys[1]
    cached = cachesOfQueues.of[B]
    if cached == nil then
      if cachesOfQueues.n >= CACHED_QUEUES then
        cachesOfQueues = { n = 0, of = {} }
      end
      cached = {}
      cachesOfQueues.of[B] = cached
      cachesOfQueues.n = cachesOfQueues.n + 1
    end
    META, JOBS, PAYLOADS, RING, GROUPS, GLIMITS = B .. ':m', B .. ':j', B .. ':p', B .. ':ring', B .. ':g', B .. ':gl'
    PARKED, DELAYED, ACTIVE, EXPIRING, REMEMBERED = B .. ':park', B .. ':d', B .. ':a', B .. ':x', B .. ':ids'
    STATS_GROUPS = B .. ':sg'
    KEPT = { c = B .. ':c', f = B .. ':f' }
    REP = {
      record = B .. ':rep:r', version = B .. ':rep:v', payload = B .. ':rep:b',
      pending = B .. ':rep:p', kind = B .. ':rep:k', todo = B .. ':rep:todo'
    }
  end
  cmd = ARG[1]
  if ARG[2] == '' then
    now = redisTime()
  else
    now = tonumber(ARG[2])
  end
  beginCall()
  local reply
  if SETTLED[cmd] and m('epoch') ~= ARG[#ARG] then
    reply = 'restore'
  else
    reply = run(command)
  end
  endCall()
  -- meta field 'todo' counts them once meta was read (every changing command reads it); else LLEN
  local todo = meta and mnum('todo', 0) or call('LLEN', REP.todo)
  if events.made == 0 then
    return { reply, todo }
  end
  return { reply, todo, mnum('ev', 0), events.made, events.written and 1 or 0 }
end
end
