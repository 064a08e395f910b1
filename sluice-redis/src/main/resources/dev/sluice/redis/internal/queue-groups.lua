-- Groups and the ring (GroupRules): where a group belongs ('ready', 'parked', 'held', 'idle', 'released'), and
-- moving it there: into the ring of groups that may start a job, the parked set, or out of both.
-- Keys: B:ring (groups served round-robin), B:park (paused groups), B:sg (released groups), B:g (through
-- touchGroup).
-- Cost: one command per move (RPUSH, ZADD); releasing a group still in the ring is an LREM, O(groups in the ring).

local place, releaseIfIdle, offer, jobEnded
do -- this file's own locals end with it (see Files in queue-state.lua)
-- Where a group belongs: 'ready', 'parked', 'held', 'idle' or 'released'.
function place(gid, g)
  if g[G_WAITING] == 0 then
    if g[G_DELAYED] == 0 and g[G_ACTIVE] == 0 and g[G_PAUSED] <= now then
      return 'released'
    end
    return 'idle'
  end
  local conc = limitsOf(gid)
  if g[G_ACTIVE] >= conc then
    return 'held'
  end
  if math.max(g[G_PAUSED], g[G_PARKED] or -NEVER) > now then
    return 'parked'
  end
  return 'ready'
end

local function release(gid, g)
  if g[G_INRING] == 1 then
    call('LREM', RING, 0, gid)
  end
  call('ZREM', PARKED, gid)
  groups[gid] = false
  groupsDirty[gid] = true
  -- its statistics outlive it: listed for their life; a group listed for the first time clears out stale ones
  if gid ~= 'u' and call('ZADD', STATS_GROUPS, int(now), gid) == 1 then
    forgetStaleGroups()
  end
end

function releaseIfIdle(gid, g)
  if g[G_WAITING] == 0 and g[G_DELAYED] == 0 and g[G_ACTIVE] == 0 and g[G_PAUSED] <= now then
    release(gid, g)
  end
end

function offer(gid, g)
  if g[G_INRING] == 1 or g[G_HELD] == 1 then
    return
  end
  local where = place(gid, g)
  if where == 'ready' then
    call('RPUSH', RING, gid)
    wake.mayStart = true
    g[G_INRING] = 1
    touchGroup(gid)
  elseif where == 'parked' then
    scheduleAt(PARKED, math.max(g[G_PAUSED], g[G_PARKED] or -NEVER), gid)
  elseif where == 'held' then
    g[G_HELD] = 1
    touchGroup(gid)
  end
end

function jobEnded(gid, g)
  if g[G_HELD] == 1 then
    g[G_HELD] = 0
    touchGroup(gid)
    offer(gid, g)
  end
end

-- ARGV: group ('' for the ungrouped jobs). Pauses it until resumeGroup: it leaves the ring, as a group paused by a
-- rate-limited result does (queue-finish.lua), and a later rate-limited pause, being shorter, leaves it so.
COMMANDS.pauseGroup = function()
  local gid = ARG[3] == '' and 'u' or 'g' .. ARG[3]
  local g = group(gid)
  g[G_PAUSED] = NEVER
  touchGroup(gid)
  if g[G_INRING] == 1 then
    call('LREM', RING, 0, gid)
    g[G_INRING] = 0
  end
  return 1
end

-- ARGV: group. Ends its pause now, if it has one (a ramp follows, see callRates.recovery). Replies 1, or 0 if it
-- was not paused.
COMMANDS.resumeGroup = function()
  local gid = ARG[3] == '' and 'u' or 'g' .. ARG[3]
  local g = findGroup(gid)
  if not g or g[G_PAUSED] <= now then
    return 0
  end
  g[G_PAUSED] = now
  g[G_PARKED] = -NEVER
  touchGroup(gid)
  call('ZREM', PARKED, gid)
  offer(gid, g)
  releaseIfIdle(gid, g)
  return 1
end

end
