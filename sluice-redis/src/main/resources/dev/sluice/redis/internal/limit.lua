-- Sluice's rate-limit script: decides every layer of one request, all or nothing, in one atomic call.
--
-- acquire: KEYS = state key and auxiliary key of each layer; ARGV = 'acquire', time, permits, layer count,
--   then kind, a, b, c per layer. Replies {now's seconds, now's nanoseconds, then per layer: allowed (1/0),
--   remaining, retry-after ns, reset-at as ns from now, lease member}: integers, not formatted times, since
--   building strings is a good part of a call's cost. Each layer is decided in order, seeing what earlier layers of the same call
--   took; if one denies, the later ones are only asked and nothing at all is written.
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
-- State, per kind (times are 20-digit strings, numbers decimal):
--   gcra    (token bucket, GCRA)  state key: "<tat>|<interval>"; tat = when the bucket is full again.
--   fixed   (fixed window)        state key: "<window start>|<count>|<window>".
--   counter (sliding counter)     state key: "<window start>|<current>|<previous>|<window>".
--   log     (sliding log)         state key: list of "<time>|<permits>", oldest first, one entry per
--                                 instant; aux key: the permits the list holds, expired entries included.
--   leases  (concurrency)         state key: sorted set, all scores 0, of "<expiry>|<lease id>|<permits>"
--                                 (lexical order = expiry order); aux key: the permits it holds, expired
--                                 leases included.
-- The window or interval stored with a state lets a changed policy re-express it first, as the in-memory
-- algorithm's adopt() does. Each write expires the keys when the state is back at its full limit: a missing
-- key always means "full limit". With a test clock (time given in ARGV) an hour of slack is added.
--
-- Every call runs this whole file, and each function it defines is a closure made anew, which costs: so the
-- file defines the shared helpers and gcra, answers a call of one gcra layer (the commonest) before defining
-- anything else, and builds the other kinds only when a call uses them.

local call = redis.call
local fmod = math.fmod
local max = math.max
local sub = string.sub
local find = string.find
local format = string.format
local match = string.match
local tonumber = tonumber

local TWO53 = 9007199254740992
local SEC = 1000000000
local MS = 1000000
local BIAS = 10000000000 -- seconds added to stored times (see the header)

local nowSec, nowNs, slackMs
if ARGV[2] == '' then
  local time = call('TIME')
  nowSec = tonumber(time[1])
  nowNs = tonumber(time[2]) * 1000
  -- Redis counts expiry from its own millisecond clock, which may lag TIME: one more ms keeps keys alive.
  slackMs = 1
else
  -- "<seconds> <nanoseconds>", floored: 1.5 s before the epoch is "-2 500000000"
  local seconds, nanos = match(ARGV[2], '^(-?%d+) (%d+)$')
  if not seconds then
    return redis.error_reply('ERR sluice limit script: time must be "<seconds> <nanoseconds>" or empty, was "'
      .. tostring(ARGV[2]) .. '"')
  end
  nowSec, nowNs = tonumber(seconds), tonumber(nanos)
  slackMs = 3600000
end

-- The commonest call by far: one token bucket or GCRA layer whose state, if any, was written under the same
-- interval. Redis runs this whole file on every call and makes each function it defines anew, so this case is
-- answered here, before the helpers below exist, with the same arithmetic as gcra.decide. Anything rarer (a
-- changed interval, times beyond 2^53 ns) falls through to the general code, which decides it the same way.
if ARGV[4] == '1' and ARGV[5] == 'gcra' and ARGV[1] == 'acquire' then
  local key, intervalString = KEYS[1], ARGV[6]
  local stored = call('GET', key)
  local d = 0 -- how far the bucket's full time (tat) lies ahead of now, when it does
  if stored then
    d = (tonumber(sub(stored, 1, 11)) - BIAS - nowSec) * SEC + (tonumber(sub(stored, 12, 20)) - nowNs)
    if d <= 0 then
      d = 0
    elseif sub(stored, 22) ~= intervalString then
      d = nil
    end
  end
  if d then
    local interval = tonumber(intervalString)
    local tolerance = tonumber(ARGV[7]) * interval
    local next = d + tonumber(ARGV[3]) * interval
    if next < TWO53 then
      -- now + delta (0 <= delta < 2^53) as stored
      local function stamp(delta)
        local r = fmod(delta, SEC)
        local s, n = nowSec + (delta - r) / SEC, nowNs + r
        if n >= SEC then
          s, n = s + 1, n - SEC
        end
        return format('%011d%09d', s + BIAS, n)
      end
      if next > tolerance then
        local room, remaining = tolerance - d, 0
        if room > 0 then
          remaining = (room - fmod(room, interval)) / interval
        end
        return { nowSec, nowNs, 0, remaining, next - tolerance, d, '' }
      end
      local tat = stamp(next)
      -- expires when full again: ms from Redis's millisecond clock (now rounded down), rounded up
      local r = fmod(next, MS)
      local ms, rest = (next - r) / MS, r + fmod(nowNs, MS)
      if rest > MS then
        ms = ms + 2
      elseif rest > 0 then
        ms = ms + 1
      end
      call('SET', key, tat .. '|' .. intervalString, 'PX', max(ms, 1) + slackMs)
      local left = tolerance - next
      return { nowSec, nowNs, 1, (left - fmod(left, interval)) / interval, 0, next, '' }
    end
  end
end

-- (s, n) + delta, normalized to 0 <= n < 1e9; |delta| <= 2^53.
local function pairAdd(s, n, delta)
  local r = fmod(delta, SEC)
  s = s + (delta - r) / SEC
  n = n + r
  if n >= SEC then
    return s + 1, n - SEC
  elseif n < 0 then
    return s - 1, n + SEC
  end
  return s, n
end

local function timeString(s, n)
  return format('%011d%09d', s + BIAS, n)
end

-- The 20-digit string of the time now + delta.
local function at(delta)
  return timeString(pairAdd(nowSec, nowNs, delta))
end

-- A stored 20-digit time (the start of str) minus now, in ns; exact below 2^53, rightly ordered beyond.
local function since(str)
  return (tonumber(sub(str, 1, 11)) - BIAS - nowSec) * SEC + (tonumber(sub(str, 12, 20)) - nowNs)
end

-- floor(x / y) for integers x >= 0, y > 0.
local function div(x, y)
  return (x - fmod(x, y)) / y
end

-- Milliseconds from Redis's millisecond clock (now rounded down) until now + delta, rounded up.
local function ttl(delta)
  local r = fmod(delta, MS)
  local ms = (delta - r) / MS
  local rest = r + fmod(nowNs, MS)
  if rest > MS then
    ms = ms + 2
  elseif rest > 0 then
    ms = ms + 1
  end
  return max(ms, 1) + slackMs
end

------------------------------------------------------------------------------------------------------------
-- Each kind has load, decide and save:
-- load(stateKey, auxKey, a, aString) reads a view of the state, re-expressed under the call's policy;
-- decide(view, limit, permits, commit, leaseId) returns allowed (1/0), remaining, retry-after, reset-at and
-- lease member, and when it allows and commit is true, records the take in the view;
-- save(view) writes a view that took permits.
------------------------------------------------------------------------------------------------------------

-- The rarely needed parts of gcra: times beyond 2^53 ns from now, which only a policy change brings.
local function gcraBeyond2To53()
  -- A stored time minus now as (seconds, nanoseconds), exact whatever its size.
  local function pairSince(str)
    return pairAdd(tonumber(sub(str, 1, 11)) - BIAS - nowSec, 0, tonumber(sub(str, 12, 20)) - nowNs)
  end

  -- The non-negative s * 1e9 + n, as a number while exact, else as a decimal string.
  local function exact(s, n)
    local value = s * SEC + n
    if value < TWO53 then
      return value
    end
    return format('%d%09d', s, n)
  end

  -- min(ceil(x * a / b), 2^61 - 1) as (seconds, nanoseconds), for x = xs * 1e9 + xn > 0 and intervals a, b:
  -- GcraAlgorithm.adopt's debt. Past 2^53, in base-2^20 digit arrays (little-endian).
  local function adoptedDebt(xs, xn, a, b)
    local x = xs * SEC + xn
    if x < TWO53 and x * a < TWO53 then
      local product = x * a
      local r = fmod(product, b)
      local q = (product - r) / b
      if r > 0 then
        q = q + 1
      end
      return pairAdd(0, 0, q)
    end
    local BASE = 1048576
    -- t * m + add, for m < 2^32 and add < 2^53.
    local function mulSmall(t, m, add)
      local out, carry = {}, add
      for i = 1, #t do
        local v = t[i] * m + carry
        local r = fmod(v, BASE)
        out[i] = r
        carry = (v - r) / BASE
      end
      while carry > 0 do
        local r = fmod(carry, BASE)
        out[#out + 1] = r
        carry = (carry - r) / BASE
      end
      return out
    end
    local function mul(u, v)
      local out = {}
      for i = 1, #u + #v do
        out[i] = 0
      end
      for i = 1, #u do
        for j = 1, #v do
          out[i + j - 1] = out[i + j - 1] + u[i] * v[j]
        end
      end
      return mulSmall(out, 1, 0)
    end
    local product = mul(mulSmall(mulSmall({}, 1, xs), SEC, xn), mulSmall({}, 1, a))
    -- ceil(product / b), by binary long division (the remainder stays below b <= 2^52)
    local q, r = {}, 0
    for i = #product, 1, -1 do
      local digit, qd, bit = product[i], 0, BASE / 2
      while bit >= 1 do
        r, qd = r * 2, qd * 2
        if digit >= bit then
          digit = digit - bit
          r = r + 1
        end
        if r >= b then
          r, qd = r - b, qd + 1
        end
        bit = bit / 2
      end
      q[i] = qd
    end
    if r > 0 then
      q = mulSmall(q, 1, 1)
    end
    -- to (seconds, nanoseconds), capped at 2^61 - 1 = 2305843009 s + 213693951 ns
    local high, rem = {}, 0
    for i = #q, 1, -1 do
      local v = rem * BASE + q[i]
      rem = fmod(v, SEC)
      high[i] = (v - rem) / SEC
    end
    local seconds = 0
    for i = #high, 1, -1 do
      seconds = seconds * BASE + high[i]
    end
    if seconds > 2305843009 or (seconds == 2305843009 and rem > 213693951) then
      return 2305843009, 213693951
    end
    return seconds, rem
  end

  return pairSince, exact, adoptedDebt
end

local gcra = {
  load = function(key, _, interval, intervalString)
    local view = { key = key, interval = interval, intervalString = intervalString, d = 0 }
    local stored = call('GET', key)
    if not stored then
      return view
    end
    local d = since(stored)
    if d <= 0 then
      return view
    end
    local ds, dn
    local old = tonumber(sub(stored, 22))
    if old ~= interval or d >= TWO53 then
      local pairSince, _, adoptedDebt = gcraBeyond2To53()
      ds, dn = pairSince(stored)
      if old ~= interval then
        ds, dn = adoptedDebt(ds, dn, interval, old)
        d = ds * SEC + dn
      end
    end
    if d >= TWO53 then
      view.ds, view.dn = ds, dn
    end
    view.d = d
    if old ~= interval then
      -- kept whatever this call decides: the state is re-expressed as of now, once
      if view.ds then
        view.tat = timeString(pairAdd(nowSec + ds, nowNs, dn))
        call('SET', key, view.tat .. '|' .. intervalString, 'PX', ds * 1000 + math.ceil(dn / MS) + 1 + slackMs)
      else
        view.tat = at(d)
        call('SET', key, view.tat .. '|' .. intervalString, 'PX', ttl(d))
      end
    end
    return view
  end,

  decide = function(view, limit, permits, commit)
    local interval = view.interval
    local tolerance = limit * interval
    local cost = permits * interval
    if view.ds then
      -- full for more than 2^53 ns (only after a policy change): denied
      local _, exact = gcraBeyond2To53()
      local retry = exact(pairAdd(view.ds, view.dn, cost - tolerance))
      return 0, 0, retry, exact(view.ds, view.dn)
    end
    local d = view.d
    local next = d + cost
    if next > tolerance then
      local room = tolerance - d
      local retry = (d - tolerance) + cost
      if retry >= TWO53 then
        local _, exact = gcraBeyond2To53()
        local over = d - tolerance
        local r = fmod(over, SEC)
        retry = exact(pairAdd((over - r) / SEC, r, cost))
      end
      return 0, room > 0 and div(room, interval) or 0, retry, d
    end
    local tat = at(next)
    if commit then
      view.d, view.tat, view.dirty = next, tat, true
    end
    return 1, div(tolerance - next, interval), 0, next
  end,

  save = function(view)
    call('SET', view.key, view.tat .. '|' .. view.intervalString, 'PX', ttl(view.d))
  end,
}

-- The full time moves permits intervals earlier, not before now (a missing key).
function gcra.refund(view, _, permits)
  local cost = permits * view.interval
  local d = view.d
  if view.ds then
    local s, n = pairAdd(view.ds, view.dn, -cost)
    d = s * SEC + n
    if d >= TWO53 then
      local tat = timeString(pairAdd(nowSec + s, nowNs, n))
      call('SET', view.key, tat .. '|' .. view.intervalString, 'PX', s * 1000 + math.ceil(n / MS) + 1 + slackMs)
      return
    end
  else
    d = d - cost
  end
  if d <= 0 then
    call('DEL', view.key)
    return
  end
  view.d, view.tat = d, at(d)
  gcra.save(view)
end

-- The commonest call, one token bucket or GCRA layer, is answered here, before the rest of the file makes
-- the other kinds' functions.
if ARGV[1] == 'acquire' and ARGV[4] == '1' and ARGV[5] == 'gcra' then
  local view = gcra.load(KEYS[1], KEYS[2], tonumber(ARGV[6]), ARGV[6])
  local allowed, remaining, retry, reset = gcra.decide(view, tonumber(ARGV[7]), tonumber(ARGV[3]), true)
  if allowed == 1 then
    gcra.save(view)
  end
  return { nowSec, nowNs, allowed, remaining, retry, reset, '' }
end

-- now mod w, for 0 < w <= 2^52: the offset of now into its epoch-aligned window of length w.
local nowMods = {}
local function nowMod(w)
  local cached = nowMods[w]
  if cached then
    return cached
  end
  local m = fmod(SEC, w)
  local seconds = nowSec < 0 and -nowSec or nowSec
  local s = 0 -- seconds * 1e9 mod w
  if m ~= 0 then
    local product = seconds * m
    if product < TWO53 then
      s = fmod(product, w)
    elseif fmod(w, SEC) == 0 then
      s = fmod(seconds, w / SEC) * SEC
    else
      local x, bit = seconds, 1
      while bit * 2 <= x do
        bit = bit * 2
      end
      while bit >= 1 do
        s = s * 2
        if s >= w then
          s = s - w
        end
        if x >= bit then
          x = x - bit
          s = s + m
          if s >= w then
            s = s - w
          end
        end
        bit = bit / 2
      end
    end
  end
  if nowSec < 0 and s > 0 then
    s = w - s -- now before the epoch: (-x * 1e9) mod w
  end
  local result = fmod(s + nowNs, w)
  nowMods[w] = result
  return result
end

-- The other kinds are built when a call first uses them.
local builders = {}

function builders.gcra()
  return gcra
end

function builders.fixed()
  local function save(view)
    local value = at(view.start) .. '|' .. format('%d|%d', view.count, view.window)
    call('SET', view.key, value, 'PX', ttl(view.start + view.window))
  end

  return {
    load = function(key, _, window)
      local view = { key = key, window = window }
      local stored = call('GET', key)
      if stored then
        local bar = find(stored, '|', 22, true)
        view.start = since(stored)
        view.count = tonumber(sub(stored, 22, bar - 1))
        local old = tonumber(sub(stored, bar + 1))
        if old ~= window then
          -- re-expressed as of now, and kept whatever this call decides
          if view.start + old > 0 then
            view.start = -nowMod(window)
            save(view)
          else
            view.start, view.count = nil, nil
            call('DEL', key)
          end
        end
      end
      return view
    end,

    decide = function(view, limit, permits, commit)
      local window = view.window
      local start, now = -nowMod(window), 0
      if view.start and view.start > start then
        start, now = view.start, view.start
      end
      local count = view.start == start and view.count or 0
      local finish = start + window
      if count + permits > limit then
        return 0, max(0, limit - count), finish - now, finish
      end
      if commit then
        view.start, view.count, view.dirty = start, count + permits, true
      end
      return 1, limit - count - permits, 0, finish
    end,

    save = save,

    -- The current window's count goes down, not below zero; earlier windows are over already.
    refund = function(view, _, permits)
      local start = -nowMod(view.window)
      if view.start and view.start > start then
        start = view.start
      end
      if view.start ~= start then
        return
      end
      view.count = max(0, view.count - permits)
      if view.count == 0 then
        call('DEL', view.key)
      else
        save(view)
      end
    end,
  }
end

function builders.counter()
  -- floor(a * b / c) for integers a, b < 2^53 and 0 < c <= 2^52 whose result is below 2^53: directly while
  -- the product is exact, else by doubling and adding over the bits of the smaller factor.
  local function mulDiv(a, b, c)
    local product = a * b
    if product < TWO53 then
      return (product - fmod(product, c)) / c
    end
    if a > b then
      a, b = b, a
    end
    local br = fmod(b, c)
    local bq = (b - br) / c
    local q, r, bit = 0, 0, 1
    while bit * 2 <= a do
      bit = bit * 2
    end
    while bit >= 1 do
      q, r = q * 2, r * 2
      if r >= c then
        q, r = q + 1, r - c
      end
      if a >= bit then
        a = a - bit
        q, r = q + bq, r + br
        if r >= c then
          q, r = q + 1, r - c
        end
      end
      bit = bit / 2
    end
    return q
  end

  -- The first time a denied request may go if nothing else arrives (SlidingCounterAlgorithm.retryAt).
  local function retryAt(window, limit, start, previous, current, permits)
    local slack = limit - current - permits
    if slack >= 0 then
      local offset = window - mulDiv(slack, window, previous)
      if offset < window then
        return start + offset
      end
    end
    local nextStart = start + window
    local nextSlack = limit - permits
    if current == 0 or nextSlack >= current then
      return nextStart
    end
    local offset = window - mulDiv(nextSlack, window, current)
    if offset < window then
      return nextStart + offset
    end
    return nextStart + window
  end

  local function resetAt(window, start, now, previous, current)
    if current > 0 then
      return start + 2 * window
    elseif previous > 0 then
      return start + window
    end
    return now
  end

  -- The window the view's counts are in (the window now falls in, or the stored one if the clock went back
  -- before it), the time to decide at, and the previous and current windows' counts there.
  local function counts(view)
    local window = view.window
    local start, now = -nowMod(window), 0
    if view.start and view.start > start then
      start, now = view.start, view.start
    end
    if view.start == start then
      return start, now, view.previous, view.current
    elseif view.start == start - window then
      return start, now, view.current, 0
    end
    return start, now, 0, 0
  end

  local function save(view)
    local value = at(view.start) .. '|' .. format('%d|%d|%d', view.current, view.previous, view.window)
    local idle = view.start + (view.current > 0 and 2 or 1) * view.window
    call('SET', view.key, value, 'PX', ttl(idle))
  end

  return {
    load = function(key, _, window)
      local view = { key = key, window = window }
      local stored = call('GET', key)
      if stored then
        local bar1 = find(stored, '|', 22, true)
        local bar2 = find(stored, '|', bar1 + 1, true)
        view.start = since(stored)
        view.current = tonumber(sub(stored, 22, bar1 - 1))
        view.previous = tonumber(sub(stored, bar1 + 1, bar2 - 1))
        local old = tonumber(sub(stored, bar2 + 1))
        if old ~= window then
          local oldStart = -nowMod(old)
          local current, previous = 0, 0
          if view.start == oldStart then
            current, previous = view.current, view.previous
          elseif view.start == oldStart - old then
            previous = view.current
          end
          view.start, view.current, view.previous = -nowMod(window), current, previous
          -- re-expressed as of now, and kept whatever this call decides
          save(view)
        end
      end
      return view
    end,

    decide = function(view, limit, permits, commit)
      local window = view.window
      local start, now, previous, current = counts(view)
      local weighted = previous - mulDiv(previous, now - start, window)
      local room = limit - current - weighted
      if permits > room then
        local retry = retryAt(window, limit, start, previous, current, permits)
        return 0, max(0, room), retry - now, resetAt(window, start, now, previous, current)
      end
      if commit then
        view.start, view.previous, view.current, view.dirty = start, previous, current + permits, true
      end
      return 1, room - permits, 0, resetAt(window, start, now, previous, current + permits)
    end,

    save = save,

    -- The current window's count goes down, then the previous one's by what is left; neither below zero.
    refund = function(view, _, permits)
      local start, _, previous, current = counts(view)
      local fromCurrent = math.min(current, permits)
      current, previous = current - fromCurrent, max(0, previous - (permits - fromCurrent))
      if current == 0 and previous == 0 then
        call('DEL', view.key)
        return
      end
      view.start, view.current, view.previous = start, current, previous
      save(view)
    end,
  }
end

function builders.log()
  -- Entry i (0-based) of a log view: its time (delta from now) and permits. The view's last entry lives in
  -- the view (it may have been taken from or appended in this call); the others are read in growing chunks.
  local function entry(view, i)
    if i == view.n - 1 then
      return view.last, view.lastCount
    end
    local raw = view.cache[i]
    if not raw then
      local chunk = call('LRANGE', view.key, i, i + max(8, view.fetched) - 1)
      for j = 1, #chunk do
        view.cache[i + j - 1] = chunk[j]
      end
      view.fetched = view.fetched + #chunk
      raw = chunk[1]
    end
    return since(raw), tonumber(sub(raw, 22))
  end

  -- Skips the entries that have left the window, whose end is measured from the later of now and the last
  -- entry (a clock that went back); returns that time.
  local function expire(view)
    local now = 0
    if view.n > 0 and view.last > now then
      now = view.last
    end
    while view.head < view.n do
      local time, count = entry(view, view.head)
      if time + view.window > now then
        break
      end
      view.total = view.total - count
      view.head = view.head + 1
    end
    return now
  end

  return {
    load = function(key, aux, window)
      local view = { key = key, aux = aux, window = window, n = 0, head = 0, total = 0, cache = {}, fetched = 0 }
      local total = call('GET', aux)
      if not total then
        view.reset = call('EXISTS', key) == 1
        return view
      end
      view.total = tonumber(total)
      view.n = call('LLEN', key)
      if view.n > 0 then
        local last = call('LINDEX', key, -1)
        view.last, view.lastCount = since(last), tonumber(sub(last, 22))
      end
      return view
    end,

    decide = function(view, limit, permits, commit)
      local window = view.window
      local now = expire(view)
      local total = view.total
      if total + permits > limit then
        local excess = total + permits - limit
        local freed, i, time, count = 0, view.head, 0, 0
        while freed < excess do
          time, count = entry(view, i)
          freed = freed + count
          i = i + 1
        end
        return 0, max(0, limit - total), time + window - now, view.last + window
      end
      if commit then
        if view.n > view.head and view.last == now then
          view.lastCount = view.lastCount + permits
          view.changed = true
        else
          view.n = view.n + 1
          view.last, view.lastCount, view.appended = now, permits, true
        end
        view.total = total + permits
        view.dirty = true
      end
      return 1, limit - total - permits, 0, now + window
    end,

    save = function(view)
      local key = view.key
      if view.reset then
        call('DEL', key)
      end
      if view.head > 0 then
        call('LTRIM', key, view.head, -1)
      end
      local last = at(view.last) .. '|' .. format('%d', view.lastCount)
      if view.appended then
        call('RPUSH', key, last)
      elseif view.changed then
        call('LSET', key, -1, last)
      end
      local ms = ttl(view.last + view.window)
      call('SET', view.aux, format('%d', view.total), 'PX', ms)
      call('PEXPIRE', key, ms)
    end,

    -- The newest grants still in the window are forgotten first.
    refund = function(view, _, permits)
      if view.n == 0 then
        return
      end
      local window = view.window
      expire(view)
      -- entries head .. i stay; the last of them keeps count permits (nil: unchanged)
      local i, left, time, count = view.n - 1, permits, 0, nil
      while left > 0 and i >= view.head do
        time, count = entry(view, i)
        if count > left then
          count, view.total, left = count - left, view.total - left, 0
        else
          view.total, left, i, count = view.total - count, left - count, i - 1, nil
        end
      end
      if i < view.head then
        call('DEL', view.key, view.aux)
        return
      end
      if not count then
        time = entry(view, i)
      end
      call('LTRIM', view.key, view.head, i)
      if count then
        call('LSET', view.key, -1, at(time) .. '|' .. format('%d', count))
      end
      local ms = ttl(time + window)
      call('SET', view.aux, format('%d', view.total), 'PX', ms)
      call('PEXPIRE', view.key, ms)
    end,
  }
end

local function leasePermits(member)
  return tonumber(match(member, '(%d+)$'))
end

function builders.leases()
  -- The expiry (delta from now) by which enough held permits have come back for the excess to fit, leases
  -- expiring in order, those this call took for earlier layers (pending) included.
  local function retryAt(view, excess)
    local freed, p, pending = 0, 1, view.pending
    local offset, size = 0, 16
    while true do
      local chunk = call('ZRANGEBYLEX', view.key, '[' .. view.cutoff, '+', 'LIMIT', offset, size)
      for j = 1, #chunk do
        local expiry = since(chunk[j])
        while p <= #pending and since(pending[p]) < expiry do
          freed = freed + leasePermits(pending[p])
          if freed >= excess then
            return since(pending[p])
          end
          p = p + 1
        end
        freed = freed + leasePermits(chunk[j])
        if freed >= excess then
          return expiry
        end
      end
      if #chunk < size then
        break
      end
      offset, size = offset + size, size * 2
    end
    while p <= #pending do
      freed = freed + leasePermits(pending[p])
      if freed >= excess then
        return since(pending[p])
      end
      p = p + 1
    end
    return error('lease state of ' .. view.key .. ' holds fewer permits than its count')
  end

  return {
    load = function(key, aux, timeout)
      local view = { key = key, aux = aux, timeout = timeout, held = 0, last = 0, pending = {} }
      view.cutoff = at(1) -- members below it expire at or before now
      local held = call('GET', aux)
      if not held then
        view.reset = call('EXISTS', key) == 1
        return view
      end
      view.held = tonumber(held)
      local expired = call('ZRANGEBYLEX', key, '-', '(' .. view.cutoff)
      for j = 1, #expired do
        view.held = view.held - leasePermits(expired[j])
      end
      view.expired = #expired > 0
      local last = call('ZREVRANGEBYLEX', key, '+', '-', 'LIMIT', 0, 1)[1]
      if last then
        view.last = max(0, since(last))
      end
      return view
    end,

    decide = function(view, limit, permits, commit, leaseId)
      local held = view.held
      if held + permits > limit then
        return 0, max(0, limit - held), retryAt(view, held + permits - limit), view.last
      end
      local reset = max(view.last, view.timeout)
      local member = ''
      if commit then
        member = at(view.timeout) .. '|' .. leaseId .. '|' .. format('%d', permits)
        view.pending[#view.pending + 1] = member
        view.held = held + permits
        view.last = reset
        view.dirty = true
      end
      return 1, limit - held - permits, 0, reset, member
    end,

    save = function(view)
      local key = view.key
      if view.reset then
        call('DEL', key)
      end
      if view.expired then
        call('ZREMRANGEBYLEX', key, '-', '(' .. view.cutoff)
      end
      local args = {}
      for j = 1, #view.pending do
        args[2 * j - 1], args[2 * j] = 0, view.pending[j]
      end
      call('ZADD', key, unpack(args))
      local ms = ttl(view.last)
      call('SET', view.aux, format('%d', view.held), 'PX', ms)
      call('PEXPIRE', key, ms)
    end,
  }
end

------------------------------------------------------------------------------------------------------------

if ARGV[1] == 'release' then
  local key, aux, member = KEYS[1], KEYS[2], ARGV[3]
  if since(member) <= 0 or call('ZREM', key, member) == 0 then
    return 0
  end
  local last = call('ZREVRANGEBYLEX', key, '+', '-', 'LIMIT', 0, 1)[1]
  if not last or since(last) <= 0 then
    call('DEL', key, aux)
    return 1
  end
  local ms = ttl(since(last))
  local held = tonumber(call('GET', aux)) or 0
  call('SET', aux, format('%d', max(0, held - leasePermits(member))), 'PX', ms)
  call('PEXPIRE', key, ms)
  return 1
end

if ARGV[1] == 'reset' then
  call('DEL', KEYS[1], KEYS[2])
  return 1
end

if ARGV[1] == 'refund' then
  local build = builders[ARGV[5]]
  local kind = build and build()
  if not kind or not kind.refund then
    return redis.error_reply('ERR sluice limit script: no refund for policy kind ' .. tostring(ARGV[5]))
  end
  local a = tonumber(ARGV[6])
  kind.refund(kind.load(KEYS[1], KEYS[2], a, ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[3]))
  return 1
end

local peek = ARGV[1] == 'peek'
if ARGV[1] ~= 'acquire' and not peek then
  return redis.error_reply('ERR sluice limit script: unknown operation ' .. tostring(ARGV[1]))
end

local permits = tonumber(ARGV[3])
local layers = tonumber(ARGV[4])
local reply = { nowSec, nowNs }
local kinds, views, taken = {}, {}, {}
local denied = peek -- a peek takes nothing, as if an earlier layer had denied
for i = 0, layers - 1 do
  local key = KEYS[2 * i + 1]
  local arg = 5 + 4 * i
  local name = ARGV[arg]
  local kind = kinds[name]
  if not kind then
    local build = builders[name]
    if not build then
      return redis.error_reply('ERR sluice limit script: unknown policy kind ' .. tostring(name))
    end
    kind = build()
    kinds[name] = kind
  end
  local a = tonumber(ARGV[arg + 1])
  local view = views[key]
  if not view then
    view = kind.load(key, KEYS[2 * i + 2], a, ARGV[arg + 1])
    view.kind, view.a = kind, a
    views[key] = view
  elseif view.kind ~= kind or view.a ~= a then
    return redis.error_reply('ERR sluice limit script: key ' .. key .. ' appears twice with different policies')
  end
  local allowed, remaining, retry, reset, member = kind.decide(view, tonumber(ARGV[arg + 2]), permits, not denied,
    ARGV[arg + 3])
  if allowed == 0 then
    denied = true
  elseif view.dirty and not view.listed then
    view.listed = true
    taken[#taken + 1] = view
  end
  local n = #reply
  reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4], reply[n + 5] = allowed, remaining, retry, reset, member or ''
end

if denied then
  for i = 0, layers - 1 do
    reply[7 + 5 * i] = ''
  end
else
  for i = 1, #taken do
    taken[i].kind.save(taken[i])
  end
end
return reply
