-- The workers attached to the queue, across processes, and the state of groups for a page of them (groupInfos): each started worker says hello when it starts and again
-- every heartbeat (a third of its lease), and bye when it closes. A worker not heard of for three heartbeats that
-- holds no lease is dropped when the workers are next read; one that holds a lease stays until its lease runs out
-- (housekeeping then takes its jobs back). obliterate checks that none is attached before a queue is removed.
-- Keys: B:wk (hash: worker -> its record, packed with MessagePack: host, pid, concurrency, when it started, when it
-- was last heard of, its heartbeat in us), B:a and B:a:<worker> (leases, see queue-records.lua).
-- Cost: hello and bye O(1); workers and obliterate O(workers + their active jobs).

do -- this file's own locals end with it (see Files in queue-state.lua)
local W_HOST, W_PID, W_CONC, W_STARTED, W_SEEN, W_BEAT = 1, 2, 3, 4, 5, 6

local function workersKey()
  return B .. ':wk'
end

-- The workers heard of lately or holding a lease, each {name, record, lease end or nil}; drops the others.
local function attached()
  local list, raw = {}, call('HGETALL', workersKey())
  for i = 1, #raw, 2 do
    local name, w = raw[i], unpack(raw[i + 1])
    local leaseEnd = tonumber(call('ZSCORE', ACTIVE, name))
    if leaseEnd or w[W_SEEN] + 3 * w[W_BEAT] >= now then
      list[#list + 1] = { name, w, leaseEnd }
    else
      call('HDEL', workersKey(), name)
    end
  end
  return list
end

-- ARGV: worker, host, pid, concurrency, heartbeat (us). Notes that the worker is alive now.
COMMANDS.hello = function()
  local old = call('HGET', workersKey(), ARG[3])
  local started = old and unpack(old)[W_STARTED] or now
  call('HSET', workersKey(), ARG[3],
    pack({ ARG[4], tonumber(ARG[5]), tonumber(ARG[6]), started, now, tonumber(ARG[7]) }))
  return 1
end

-- ARGV: worker. The worker closed.
COMMANDS.bye = function()
  return call('HDEL', workersKey(), ARG[3])
end

-- Replies per attached worker {name, host, pid, concurrency, started, last heard of, lease end or -1, then the ids
-- of the active jobs it holds}, by name.
COMMANDS.workers = function()
  local reply = {}
  for _, a in ipairs(attached()) do
    local w = a[2]
    local row = { a[1], w[W_HOST], w[W_PID], w[W_CONC], int(w[W_STARTED]), int(w[W_SEEN]), int(a[3] or -1) }
    for _, id in ipairs(call('SMEMBERS', lease.held(a[1]))) do
      row[#row + 1] = id
    end
    reply[#reply + 1] = row
  end
  table.sort(reply, function(x, y) return x[1] < y[1] end)
  return reply
end

-- ARGV: group names. Replies per group {waiting, delayed, active, its pause's end (-1: none now; 2^53: until
-- resumed), concurrency, maxQueued, rate (as stored, '' for none), 1 if those are its own limits else 0}.
COMMANDS.groupInfos = function()
  local reply = {}
  for i = 3, #ARG do
    local gid = 'g' .. ARG[i]
    local g = findGroup(gid)
    local c, w, rate, scope = limitsOf(gid)
    local paused = (g and g[G_PAUSED] > now) and g[G_PAUSED] or -1
    reply[#reply + 1] = { g and g[G_WAITING] or 0, g and g[G_DELAYED] or 0, g and g[G_ACTIVE] or 0, int(paused),
      c, w, rate, sub(scope, 1, 1) == 'o' and 1 or 0 }
  end
  return reply
end

-- ARGV: '1' to force. Replies {'ok'}, or {'attached', then each attached worker as host:pid/name} (nothing
-- changed). The caller removes the queue's keys once this replied 'ok'.
COMMANDS.obliterate = function()
  if ARG[3] ~= '1' then
    local names = {}
    for _, a in ipairs(attached()) do
      names[#names + 1] = a[2][W_HOST] .. ':' .. int(a[2][W_PID]) .. '/' .. a[1]
    end
    for _, worker in ipairs(call('ZRANGE', ACTIVE, 0, -1)) do
      if not call('HEXISTS', workersKey(), worker) then
        names[#names + 1] = 'a worker holding a lease/' .. worker
      end
    end
    if #names > 0 then
      table.sort(names)
      table.insert(names, 1, 'attached')
      return names
    end
  end
  return { 'ok' }
end
end
