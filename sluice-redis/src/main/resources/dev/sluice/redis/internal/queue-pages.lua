-- Pages of jobs by cursor (page): a page ends at a place in its state's order that holds while jobs move, and the
-- next page begins after that place (JobPage.java has the rules). The places: waiting {group, priority, order key},
-- delayed {due time, order key}, active {start, seq}, completed and failed {finish number, how many kept jobs of the
-- state finished before it}; each with the job's id.
-- Keys: B:g, B:w:<g>, B:d, B:a, B:a:<w>, B:c, B:f, B:j.
-- ARGV: state, limit, then the cursor's place, or nothing for the first page: group ('u', 'g<name>'; '' for the
-- states without groups), first, second, id.
-- Replies {the place of the page's last job ({group, first, second, id}), or false if no job followed the page; then
-- the page's snapshots}.
-- Cost: waiting O(G log G + log n + limit) for G groups (the sort in C) (log^2 n instead of log n when the cursor's job has left its
-- place); delayed O(log n + limit) (the same); active O(a log a); kept finished jobs O(d/128 + limit) for a cursor
-- d jobs from the nearer end of its list (log d times as many when jobs that finished before the cursor's left).

do -- this file's own locals end with it (see Files in queue-state.lua)
-- Whether string a comes before b byte by byte, as Redis orders members (Lua's < follows the server's locale).
local function before(a, b)
  if a == b then
    return false
  end
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x < y
    end
  end
  return #a < #b
end

-- The rank in sorted set key of the first member after member at score: the one after member if it is still there,
-- else found by halving among the members of that score.
local function rankAfter(key, score, member)
  local rank = call('ZRANK', key, member)
  if rank then
    return rank + 1
  end
  local lo = call('ZCOUNT', key, '-inf', '(' .. int(score))
  local hi = lo + call('ZCOUNT', key, int(score), int(score))
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if before(member, call('ZRANGE', key, mid, mid)[1]) then
      hi = mid
    else
      lo = mid + 1
    end
  end
  return lo
end

-- Appends to ids and places the members of sorted set key from rank from, want at most; toFirst maps a score to
-- the place's first part.
local function membersFrom(key, from, want, gid, toFirst, ids, places)
  local members = call('ZRANGE', key, from, from + want - #ids - 1, 'WITHSCORES')
  for i = 1, #members, 2 do
    local member = members[i]
    ids[#ids + 1] = sub(member, 17)
    places[#places + 1] = { gid, toFirst(tonumber(members[i + 1])), tonumber(sub(member, 1, 16), 16) }
  end
end

local function negated(score)
  return -score
end

local function same(score)
  return score
end

-- Each byte's two hex digits (filled at the first use: the standard library is not there while the library loads).
local HEX = {}

-- s in hex: Lua's < on such texts is their byte order in any locale, and sorts them without a Lua function per test.
local function hexOf(s)
  if HEX.filled == nil then
    for i = 0, 255 do
      HEX[string.char(i)] = format('%02x', i)
    end
    HEX.filled = true
  end
  return (string.gsub(s, '.', HEX))
end

-- Waiting jobs: group after group in the byte order of their names in keys, within each as they will run.
local function waitingPage(cursor, want, ids, places)
  local from, later, named = cursor and hexOf(cursor[1]), {}, {}
  for _, gid in ipairs(call('HKEYS', GROUPS)) do
    local hex = hexOf(gid)
    if not from or from < hex then
      later[#later + 1] = hex
      named[hex] = gid
    end
  end
  table.sort(later)
  if cursor then
    local key = waitingKey(cursor[1])
    local from = rankAfter(key, -cursor[2], orderKey(cursor[3]) .. cursor[4])
    membersFrom(key, from, want, cursor[1], negated, ids, places)
  end
  for _, hex in ipairs(later) do
    if #ids >= want then
      break
    end
    local gid = named[hex]
    membersFrom(waitingKey(gid), 0, want, gid, negated, ids, places)
  end
end

local function activePage(cursor, want, ids, places)
  local all = {}
  for _, worker in ipairs(call('ZRANGE', ACTIVE, 0, -1)) do
    for _, id in ipairs(call('SMEMBERS', lease.held(worker))) do
      local job = loadJob(id)
      all[#all + 1] = { id, job[R_STARTED] or 0, job[R_SEQ] or 0 }
    end
  end
  local function earlier(a, b)
    if a[2] ~= b[2] then
      return a[2] < b[2]
    elseif a[3] ~= b[3] then
      return a[3] < b[3]
    end
    return before(a[1], b[1])
  end
  table.sort(all, earlier)
  local place = cursor and { cursor[4], cursor[2], cursor[3] }
  for _, job in ipairs(all) do
    if #ids >= want then
      break
    end
    if not place or earlier(place, job) then
      ids[#ids + 1] = job[1]
      places[#places + 1] = { '', job[2], job[3] }
    end
  end
end

-- Kept finished jobs: the list is newest first, and a job's finish number (R_FINISH) grows with each finish, so the
-- jobs that finished before the cursor's are the list's last ones; how many is found from the count the cursor holds,
-- which only jobs leaving can lower.
local function keptPage(s, cursor, want, ids, places)
  local key = KEPT[s]
  local length = call('LLEN', key)
  local function finishAt(fromTail)
    local id = call('LINDEX', key, -fromTail - 1)
    local job = id and loadJob(id)
    return job and job[R_FINISH] or 0
  end
  local older = length
  if cursor then
    local finish = cursor[2]
    older = math.max(0, math.min(cursor[3], length))
    local fits = (older == length or finishAt(older) >= finish) and (older == 0 or finishAt(older - 1) < finish)
    if not fits then
      local lo, hi = 0, older
      while lo < hi do
        local mid = math.floor((lo + hi) / 2)
        if finishAt(mid) >= finish then
          hi = mid
        else
          lo = mid + 1
        end
      end
      older = lo
    end
  end
  if older == 0 then
    return
  end
  local page = call('LRANGE', key, -older, math.min(-older + want - 1, -1))
  for i, id in ipairs(page) do
    local job = loadJob(id)
    ids[#ids + 1] = id
    places[#places + 1] = { '', job[R_FINISH] or 0, older - i }
  end
end

COMMANDS.page = function()
  local state, limit = ARG[3], tonumber(ARG[4])
  local cursor = ARG[5] and { ARG[5], tonumber(ARG[6]), tonumber(ARG[7]), ARG[8] }
  local want, ids, places = limit + 1, {}, {}
  if state == 'WAITING' then
    waitingPage(cursor, want, ids, places)
  elseif state == 'DELAYED' then
    local from = cursor and rankAfter(DELAYED, cursor[2], orderKey(cursor[3]) .. cursor[4]) or 0
    membersFrom(DELAYED, from, want, '', same, ids, places)
  elseif state == 'ACTIVE' then
    activePage(cursor, want, ids, places)
  else
    keptPage(state == 'COMPLETED' and 'c' or 'f', cursor, want, ids, places)
  end
  local reply = { false }
  if #ids > limit then
    ids[#ids] = nil
    local place = places[limit]
    reply[1] = { place[1], place[2], place[3], ids[limit] }
  end
  prefetchJobs(ids)
  for _, id in ipairs(ids) do
    reply[#reply + 1] = snapshot(id, loadJob(id))
  end
  return reply
end
end
