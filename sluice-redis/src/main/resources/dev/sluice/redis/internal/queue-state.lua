-- Sluice's queue library: every change of a queue's state, and every read that must see due work applied, as
-- one atomic call of entry(keys, args). The engine adds how it is called: as Redis functions (Redis 7+, loaded
-- once), one per command, <library>_<command>, each giving entry() its command; or at the end of a script
-- (EVALSHA), which finds the command by the name in args[1]. keys[1] is the queue's base key,
-- "<prefix>:queue:{<name>}"; every other key of the queue is the base plus a suffix (below), so all of them hash to
-- the base's slot and the library works on Redis Cluster.
-- args[1] (ARG below) names the command, args[2] is the time: empty (Redis's own clock, TIME) or epoch microseconds (a test
-- clock). Every command first applies what is due at that time (housekeep): delayed jobs that came due become
-- waiting, paused groups whose pause ended come back, leases that ran out put their jobs back (or fail them
-- after too many stalls), kept jobs whose age ran out go, remembered ids whose window ended are forgotten.
--
-- Time: epoch microseconds, exact in Lua's doubles until the year 2255. A boundary instant belongs to what
-- follows it: a job due at t waits at t, a pause or a lease ending at t no longer holds at t, a job kept for
-- an age is gone when it reaches it, an id remembered until t is free at t.
--
-- Keys (base B):
--   B:m          hash   the queue: codec, counters (waiting, delayed, active), totals (added, completed,
--                       failed), id and order counters, pause, configuration (concurrency, maxQueued, group
--                       defaults), 'leases' ('w' once B:a holds leases per worker)
--   B:j          hash   job id -> the job's record (cmsgpack array, fields R_* below); and "\255<id>" -> the attempt
--                       an active job's worker holds, when a claim of a plain queue started it: struct-packed values
--                       {token, started, most stalls, claim reference, group name}; the record then stays as it was
--                       while the job waited (see Active jobs below)
--   B:p          hash   job id -> payload bytes, as the codec encoded them, while the job is not finished (a kept
--                       job's is in its record)
--   B:w:<g>      zset   group g's waiting jobs: score -priority, member "<16 hex order><id>"
--   B:ring       list   groups that may start a job, served round-robin
--   B:g          hash   group g -> its record (cmsgpack array, fields G_*); absent when it holds nothing
--   B:gl         hash   group g -> its own limits "<concurrency>|<maxQueued>|<rate generation>|<rate>"
--   B:park       zset   paused groups, score the end of the pause
--   B:d          zset   delayed jobs: score when due, member "<16 hex order><id>"
--   B:a          zset   the workers that hold active jobs: score when the worker's lease runs out, member the
--                       worker's name (its claim references' part before the dot); a claim or a renewal sets it
--   B:a:<w>      set    the ids of the active jobs worker w holds; when w's lease runs out, each goes back to
--                       waiting (a stall), and both entries go
-- Group names in keys: "u" for the jobs without a group, "g<name>" for group <name>.
--
-- Active jobs: in a plain queue, one whose jobs not finished all complete without their records (kept by none, no
-- de-duplication window, no runs of repeatable jobs: meta field 'sp' counts the others, see queue-held.lua), a claim
-- writes no record. The attempt it starts is the job's second field in B:j, and the record still reads as it did while the
-- job waited (state 'w'); loadJob() makes the record active from that entry (held.attach), so that every reader of
-- a record sees the job active, with its attempt in its history. A call that writes an active job's record writes it
-- active (state 'a'), which then needs no entry to read as such. There, a completion with no listener and no
-- snapshot wanted reads only the attempt: the record goes unread (held.complete in queue-moves.lua). In other queues a
-- claim writes the record active. The Java side makes a claimed record active as held.attach does
-- (JobRecord.activated).
--
-- Replies are arrays of integers and bulk strings, wrapped in an array (so that every reply has the same form:
-- see entry()); a job is replied as its snapshot (see snapshot()).
--
-- Events: see queue-events.lua. Idle workers: see queue-claim.lua.
--
-- Files: the library is cut by concern into files that QueueScript joins, in its order, into one Lua chunk, so
-- that each file uses the locals of the files before it. Lua allows a chunk 200 locals: a file whose own helpers
-- no later file uses keeps them in a block (do ... end) that ends with the file, and declares before it the names
-- later files use; the chunk holds 165 (QueueScriptTest checks that 30 more fit). The files: this one (keys,
-- constants), queue-records.lua, queue-meta.lua, queue-rates.lua, queue-stats.lua, queue-groups.lua,
-- queue-moves.lua, queue-held.lua, queue-housekeeping.lua, queue-events.lua, queue-claim.lua, queue-add.lua, queue-finish.lua,
-- queue-admin.lua, queue-pages.lua, queue-commands.lua (the commands, one function each), queue-entry.lua (entry()),
-- queue-settings.lua.
-- Complexity: O(log n) per job moved, plus what falls due; reads of pages O(offset + limit).

-- set by entry(): a library of Redis functions may use neither Redis's API nor the standard library while it
-- loads
local call, pack, unpack, spread, tonumber, tostring, format, sub

-- This call's arguments (ARGV), its queue's keys, its command and its time: set by entry() at each call. The
-- functions below are defined once where Redis keeps them loaded (a library of Redis functions), or at each
-- call of a script.
local ARG
local B, META, JOBS, PAYLOADS, RING, GROUPS, GLIMITS
local PARKED, DELAYED, ACTIVE, EXPIRING, REMEMBERED, KEPT, STATS_GROUPS
-- the keys of repeatable jobs: the engine's record of each (text), its version, its template's payload, the run it
-- waits for, whether it is a fixed delay ('d') or not ('r'); and the events of pending runs the engine plans from
-- (REP.record, .version, .payload, .pending, .kind, .todo: one local for the six, as the chunk's locals are few)
local REP
local cmd, now
local rpcall -- redis.pcall, set by entry()
local emit -- defined with the replies: records an event (see queue-events.lua)

local NEVER = 9007199254740992 -- 2^53: no time
local WAIT_HORIZON = 15000000 -- us: how long an idle worker's note in 'wt' holds (it claims again every 5 s)
-- What this call did that waiting processes care about (see queue-claim.lua): mayStart, a job may start that could
-- not before; waitNoted, its claims fell short (its process has idle workers); dueLowered, something falls due
-- sooner than anything did before; roomFreed, a waiting or delayed job left or the bounds changed (a full queue
-- may have room); roomNoted, its add found the queue full and its producer waits for room; ownWakes, its add's
-- process wakes an idle worker of its own for what it added (no marker then).
local wake = {}

-- An integer as Redis should get it: Lua's own conversion keeps 14 digits, and times in microseconds have 16.
local function int(x)
  return format('%d', x)
end
local ORDER_MIDDLE = 4503599627370496 -- 2^52: waiting order keys above it go last, below it first

-- the job record
local R_NAME, R_GROUP, R_STATE, R_OPTS, R_CREATED, R_SEQ, R_KEY, R_READY, R_RUNAT, R_STARTED = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
local R_FINISHED, R_FINISH, R_MADE, R_RLIMITS, R_PROGRESS, R_RESULT = 11, 12, 13, 14, 15, 16
local R_FREASON, R_FCLASS, R_FTRACE, R_ATTEMPTS, R_HISTORY, R_TOKEN, R_STALLS, R_MAXSTALLS = 17, 18, 19, 20, 21, 22, 23, 24
local R_MAX_ATTEMPTS, R_PRIORITY, R_KC_N, R_KC_AGE, R_KF_N, R_KF_AGE, R_MAX_RL, R_DEDUP = 25, 26, 27, 28, 29, 30, 31, 32
-- R_CLAIM is absent while the job is not active, unless R_PAYLOAD follows it: the payload of a kept finished job,
-- moved into its record from B:p when it finished (one hash entry fewer per kept job), and back when it waits again
local R_REPEAT, R_SCHEDULED, R_CLAIM, R_PAYLOAD = 33, 34, 35, 36
-- the group record
local G_WAITING, G_DELAYED, G_ACTIVE, G_PAUSED, G_INRING, G_HELD, G_PARKED = 1, 2, 3, 4, 5, 6, 7

local KEEP_ALL = 2147483647 -- Retention.keepAll()'s count
