-- Token bucket (GCRA): state key "<tat>|<interval>", tat the time the bucket is full again (20-digit string),
-- interval the nanoseconds one permit takes to come back. A changed interval re-expresses the debt (adopt),
-- which may reach times beyond 2^53 ns: those rarer parts are made only when needed (gcraBeyond2To53).
-- Keys: the state key only. Cost: one GET, and one SET when permits are taken; answers a single gcra acquire
-- before the other kinds are made.

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
