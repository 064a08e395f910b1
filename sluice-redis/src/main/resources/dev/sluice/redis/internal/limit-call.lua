-- Sluice's rate-limit script: decides every layer of one request, all or nothing, in one atomic call.
--
-- acquire: KEYS = state key and auxiliary key of each layer; ARGV = 'acquire', time, permits, layer count,
--   then kind, a, b, c per layer. Replies {now's seconds, now's nanoseconds, then per layer: allowed (1/0),
--   remaining, retry-after ns, reset-at as ns from now, lease member}: integers, not formatted times, since
--   building strings is a good part of a call's cost. Each layer is decided in order, seeing what earlier
--   layers of the same call took; if one denies, the later ones are only asked and nothing at all is written.
-- peek: as acquire, deciding every layer as acquire would without taking or writing anything (a state
--   written under another policy may be re-expressed, as by any call). Replies as acquire, lease members empty.
-- release: KEYS = a concurrency layer's two keys; ARGV = 'release', time, lease member. Replies 1 if this
--   call returned the lease's permits, 0 if it had been released or had expired.
-- refund: KEYS and ARGV as an acquire of one layer of any kind but leases, with 'refund' first: gives the
--   permits back as the in-memory algorithm's refund() does, never beyond the full limit. Replies 1.
-- reset: KEYS = a layer's two keys; ARGV = 'reset', time. Deletes the layer's state: the key is back at its
--   full limit. Replies 1.
--
-- Time. Epoch nanoseconds (about 1.8e18) do not fit the 53-bit integers of Lua's doubles, so 'now' is kept
-- as whole seconds and nanoseconds (nowSec, nowNs), and every other time as a delta from now, exact while
-- it stays below 2^53 ns (104 days); the engine keeps every policy span at most 2^52 ns. Stored times are
-- 20-digit strings, seconds biased by 10^10 so that times before 1970 (test clocks) stay positive and the
-- strings sort as the times compare, read back into deltas with since().
-- Times and retry-afters that can pass 2^53 are replied as decimal strings; divisions use fmod, which is
-- exact, and products that can pass 2^53 go through mulDiv (bit by bit) or, on a policy change, bignum.
--
-- Files: the script is cut by concern into files that LimitScript joins, in its order, into one chunk (each uses
-- the locals of the files before it): limit-script.lua (the script's start: the commonest call answered inline),
-- this one (the protocol, the time), limit-time.lua (arithmetic on times), limit-gcra.lua (token bucket, GCRA),
-- limit-fixed.lua (fixed window), limit-counter.lua (sliding counter), limit-log.lua (sliding log),
-- limit-leases.lua (concurrency) and limit-entry.lua (the operations: release, reset, refund, and acquire or peek
-- of any layers). Each kind's file says its state.
-- Keys: a layer's state key and auxiliary key. A missing key always means "full limit". Each write expires the
-- keys when the state is back at its full limit; with a test clock (time given in ARGV) an hour of slack is
-- added. The window or interval stored with a state lets a changed policy re-express it first, as the in-memory
-- algorithm's adopt() does.
--
-- The files from this one to limit-leases.lua define functions only. The queue library holds them, with
-- limit-decide.lua: loaded as Redis functions, they are made once, and the queue decides a rate with one layer's
-- algorithm directly (limitView, limitDecide). Cost as a script: every call runs the whole chunk, and each function
-- it defines is a closure made anew, so the script answers the commonest call before any (limit-script.lua); and
-- each kind is built only when a call uses it.

-- set at each call (limit-entry.lua, limitClockAt): a library of Redis functions may use neither Redis's API nor
-- the standard library while it loads
local call, fmod, max, sub, find, format, match, tonumber

local TWO53 = 9007199254740992
local SEC = 1000000000
local MS = 1000000
local BIAS = 10000000000 -- seconds added to stored times (see the header)

-- The call's time, the slack its key expiries get, and nowMod's results at that time (limit-fixed.lua).
local nowSec, nowNs, slackMs
local nowMods = {}
