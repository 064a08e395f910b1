-- The queue's meta hash B:m: read once per call, when a call first needs a field (m, mnum), changed in the call's
-- table (mset, madd, mdel) and written once at its end (flushMeta); and scheduleAt, which adds to a timed sorted
-- set and lowers the queue's 'due'.
-- Keys: B:m, the timed sorted sets (B:d, B:park, B:a, B:x, B:ids).
-- Cost: one HGETALL per call that reads a field (O(fields), about 16), one HSET per call that changed any, one HDEL
-- per mdel; one ZADD per scheduleAt.

local meta = nil -- the queue's hash, read once per call when needed
local metaDirty = {}

local metaNumbers = {} -- the meta fields read as numbers in this call (false: not a number)

-- A field that madd changed holds false in meta until it is read as text or written: its number is in metaNumbers,
-- so that a counter moved once per job is formatted once per call.
local function m(field)
  if meta == nil then
    meta = {}
    local flat = call('HGETALL', META)
    for i = 1, #flat, 2 do
      meta[flat[i]] = flat[i + 1]
    end
  end
  local value = meta[field]
  if value == false then
    value = int(metaNumbers[field])
    meta[field] = value
  end
  return value
end

local function mnum(field, default)
  local v = metaNumbers[field]
  if v == nil then
    v = tonumber(m(field)) or false
    metaNumbers[field] = v
  end
  if v == false then
    return default
  end
  return v
end

local function mset(field, value)
  m(field)
  meta[field] = value
  metaDirty[field] = true
  metaNumbers[field] = nil
end

local function mdel(field)
  call('HDEL', META, field)
  m(field)
  meta[field] = nil
  metaDirty[field] = nil
  metaNumbers[field] = nil
end

local function madd(field, delta)
  local n = mnum(field, 0) + delta
  meta[field] = false
  metaDirty[field] = true
  metaNumbers[field] = n
end

-- Adds member to one of the timed sorted sets (delayed, paused groups, leases, expiries, remembered ids) at time
-- at, lowering the queue's 'due': no call looks at those sets before the earliest time any of them holds (a
-- 'due' left early by a removal only makes one call look and find nothing).
local function scheduleAt(key, at, member)
  if key == ACTIVE then
    flushGone()
  end
  call('ZADD', key, int(at), member)
  if at < mnum('due', NEVER) then
    mset('due', int(at))
    wake.dueLowered = true
  end
end

-- Worker's lease runs until now + leaseFor: one ZADD. A claim (not renewing) skips it if this library set the lease
-- in an earlier call to a time at least two thirds of a lease ahead, and no lease has been taken from B:a since
-- ('lg' counts those; the settings' epoch changes if Redis lost the queue): the worker renews its lease every
-- third of a lease while it runs jobs, so a job claimed then has as long as any other.
function lease.extend(worker, leaseFor, renewing)
  local generation = (m('epoch') or '') .. '|' .. (m('lg') or '')
  local known = cachedIn(':leases')
  local set = known.of[worker]
  if not renewing and set and set[2] == generation and set[1] >= now + leaseFor * 2 / 3 then
    return
  end
  scheduleAt(ACTIVE, now + leaseFor, worker)
  if set == nil then
    known.n = known.n + 1
  end
  known.of[worker] = { now + leaseFor, generation }
end

local function flushMeta()
  local flat = {}
  for field in pairs(metaDirty) do
    flat[#flat + 1] = field
    flat[#flat + 1] = m(field)
  end
  if #flat > 0 then
    call('HSET', META, spread(flat))
  end
end
