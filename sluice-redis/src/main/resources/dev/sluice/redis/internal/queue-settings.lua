-- The queue's settings: opening a queue, changing its limits, and restoring its settings after Redis lost them.
-- Joined after the other queue-*.lua files (QueueScript.FILES), whose locals it uses; entry() runs these
-- commands from COMMANDS.
--
-- Settings: the codec, and concurrency, maxQueued, gconc, gmax, rate, grate (fields of B:m), and 'gl:<g>' for
-- the own limits of group g (names in keys) in B:gl.
--
-- Redis can lose a queue's keys while processes use it (restarted without persistence, flushed). B:m then comes
-- back from the next call's counters without the settings, and jobs would run unlimited. So meta field 'epoch'
-- names one life of the settings: 'open' sets it where there is none, from the opener's candidate; 'restore' of
-- lost settings (no codec) sets a new one. A process sends the epoch it knows as the last argument of every call
-- that relies on the settings (SETTLED in queue-entry.lua); one whose epoch is not the queue's does nothing and replies
-- 'restore': the process restores the settings it knows, then calls again with the epoch 'restore' replied.
--
-- B:cs   hash   setting -> its stamp: when it was last set, in the queue's time, made strictly increasing per
--               queue (field '#' holds the latest stamp). A restore writes a setting only where the queue's is
--               older (or has none), so that processes restoring at once, in any order, end with the latest
--               value any of them knew of, and a setting changed after the loss stays.
-- Complexity: O(settings) per call, plus, when limits changed, O(groups held) to look at every group again.

do -- this file's own locals end with it (see Files in queue-state.lua)
-- A stamp later than every stamp of the queue: now, or the latest + 1.
local function newStamp()
  local stamps = B .. ':cs'
  local stamp = math.max(now, (tonumber(call('HGET', stamps, '#')) or 0) + 1)
  call('HSET', stamps, '#', int(stamp))
  return stamp
end

-- Whether string a comes before b byte by byte (Lua's own < follows the server's locale).
local function bytewiseLess(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x < y
    end
  end
  return #a < #b
end

-- Sets meta field to rate ('' removes it), with a new generation in generationField unless the old rate's state
-- carries over to it.
local function setRateField(field, generationField, rate)
  if not adoptable(m(field), rate) then
    mset(generationField, newGeneration())
  end
  if rate == '' then
    mdel(field)
  else
    mset(field, rate)
  end
end

local RATE_GENERATIONS = { rate = 'rgq', grate = 'rgd' }

-- Sets setting name to value: for a group, '<concurrency>|<maxQueued>|<rate>', or '' for no own limits.
local function setSetting(name, value)
  if string.find(value, ';A,', 1, true) then
    mset('ad', 1) -- the finish reads every ending's record from now on (see queue-adaptive.lua)
  end
  local gid = string.match(name, '^gl:(.*)$')
  if gid then
    local c, w, rate = string.match(value, '^(%d+)|(%d+)|(.*)$')
    if not c then
      call('HDEL', GLIMITS, gid)
      return
    end
    local old = call('HGET', GLIMITS, gid)
    local generation = old and string.match(old, '^%d+|%d+|(%d+)|')
    if not (old and adoptable(string.match(old, '^%d+|%d+|%d+|(.*)$'), rate)) then
      generation = newGeneration()
    end
    call('HSET', GLIMITS, gid, c .. '|' .. w .. '|' .. generation .. '|' .. rate)
  elseif RATE_GENERATIONS[name] then
    setRateField(name, RATE_GENERATIONS[name], value)
    if name == 'rate' then
      mdel('rateBlocked')
    end
  else
    mset(name, value)
  end
end

-- Every group is looked at again under new limits: held and rate-parked ones come back, in the groups' tie order
-- (as in memory: names in keys, byte by byte).
local function reconsiderGroups()
  ownLimits = {}
  local inOrder = call('HKEYS', GROUPS)
  table.sort(inOrder, bytewiseLess)
  for _, gid in ipairs(inOrder) do
    local g = findGroup(gid)
    if g then
      g[G_HELD] = 0
      g[G_PARKED] = -NEVER
      touchGroup(gid)
      call('ZREM', PARKED, gid)
      offer(gid, g)
    end
  end
end

-- limits: changes a limit; ARGV: what ('concurrency', 'rate', 'defaults', 'group', 'clear'), then values.
-- Replies the change's stamp.
COMMANDS.limits = function()
  local what, stamp = ARG[3], newStamp()
  local function set(name, value)
    setSetting(name, value)
    call('HSET', B .. ':cs', name, int(stamp))
  end
  if what == 'concurrency' then
    set('concurrency', ARG[4])
  elseif what == 'rate' then
    set('rate', ARG[4])
  elseif what == 'defaults' then
    set('gconc', ARG[4])
    set('gmax', ARG[5])
    set('grate', ARG[6])
  elseif what == 'group' then
    set('gl:g' .. ARG[4], ARG[5] .. '|' .. ARG[6] .. '|' .. ARG[7])
  elseif what == 'clear' then
    set('gl:g' .. ARG[4], '')
  end
  reconsiderGroups()
  return int(stamp)
end

local OPENED = { 'concurrency', 'maxQueued', 'gconc', 'gmax', 'rate', 'grate' }

-- open: ARG: codec, a candidate epoch, then concurrency, maxQueued, group concurrency, group maxQueued, the
-- queue's rate and the groups' default rate, each as '=' .. value when the opener gave it (it is written for every
-- process) or '?' .. value when it is the default (written only if the queue has none yet; '?' alone: no rate).
-- Replies {the codec the queue was created with, the epoch of its settings, the stamp of the settings given}.
COMMANDS.open = function()
  for _, key in ipairs({ KEPT.c, KEPT.f }) do
    -- a kept set of the earlier layout (a sorted set by finish number) becomes the list this one keeps, newest
    -- first: once per queue, in the first open by this version; linear in the jobs kept
    if call('TYPE', key).ok == 'zset' then
      local ids = call('ZRANGE', key, 0, -1)
      call('DEL', key)
      inChunks('LPUSH', key, ids, 1000)
    end
  end
  call('HSETNX', META, 'codec', ARG[3])
  call('HSETNX', META, 'epoch', ARG[4])
  if m('leases') ~= 'w' then
    -- leases of the earlier layout (in B:a, one per active job) become the leases of the jobs' workers: once per
    -- queue, in the first open by this version; linear in the active jobs. A member that is no active job's id is
    -- a worker's already, and stays.
    local old = call('ZRANGE', ACTIVE, 0, -1, 'WITHSCORES')
    for i = 1, #old, 2 do
      local id = old[i]
      local job = loadJob(id)
      if job and job[R_STATE] == 'a' then
        call('ZREM', ACTIVE, id)
        local worker = lease.worker(job[R_CLAIM] or '')
        call('SADD', lease.held(worker), id)
        call('ZADD', ACTIVE, 'GT', old[i + 1], worker)
      end
    end
    mset('leases', 'w')
  end
  mset('todo', int(call('LLEN', REP.todo)))
  local stamp = newStamp()
  for i, field in ipairs(OPENED) do
    local given = ARG[4 + i]
    local value = sub(given, 2)
    if sub(given, 1, 1) == '=' then
      setSetting(field, value)
      call('HSET', B .. ':cs', field, int(stamp))
    elseif value ~= '' and not m(field) then
      mset(field, value)
    end
  end
  return { m('codec'), m('epoch'), int(stamp) }
end

-- restore: ARG: codec, a candidate epoch, then per setting the process knows: its name, its value ('=' .. value,
-- set by the process at the stamp that follows; '?' .. value, its default, written only where the queue has
-- none), its stamp ('' for a default). Writes the codec and a new epoch if the queue has no codec (its settings
-- were lost); then each setting as said above, and looks at every group again if any was written. Replies {1 if
-- the settings were lost else 0, the queue's codec, its epoch, then the names of the settings written}.
COMMANDS.restore = function()
  local stamps = B .. ':cs'
  local lost = not m('codec')
  if lost then
    mset('codec', ARG[3])
    mset('epoch', ARG[4])
  elseif not m('epoch') then
    mset('epoch', ARG[4])
  end
  local reply, latest = { lost and 1 or 0, m('codec'), m('epoch') }, 0
  for i = 5, #ARG - 2, 3 do
    local name, given, stamp = ARG[i], ARG[i + 1], tonumber(ARG[i + 2])
    local value = sub(given, 2)
    if sub(given, 1, 1) == '?' then
      if value ~= '' and not m(name) then
        mset(name, value)
      end
    else
      local held = tonumber(call('HGET', stamps, name))
      if not held or held < stamp then
        setSetting(name, value)
        call('HSET', stamps, name, int(stamp))
        latest = math.max(latest, stamp)
        reply[#reply + 1] = name
      end
    end
  end
  if latest > (tonumber(call('HGET', stamps, '#')) or 0) then
    call('HSET', stamps, '#', int(latest))
  end
  if #reply > 3 then
    reconsiderGroups()
  end
  return reply
end
end
