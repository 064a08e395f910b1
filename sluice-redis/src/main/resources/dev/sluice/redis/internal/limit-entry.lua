-- The script's operations, its last part: the time limit-script.lua read given to the functions, then release and
-- reset of a layer, refund, and acquire or peek of any number of layers (a chain), each layer decided in order by
-- its kind, all or nothing (see limit-call.lua for the protocol). The queue library does not hold this file (it
-- decides with limit-decide.lua's functions).
-- Keys: two per layer. Cost: each layer's load, decide and, when every layer allows, save.

call, fmod, max, sub, find, format, match, tonumber = redis.call, math.fmod, math.max, string.sub, string.find,
  string.format, string.match, _G.tonumber
nowSec, nowNs = startSec, startNs
slackMs = ARGV[2] == '' and 1 or 3600000

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
  local kind = kindNamed(ARGV[5])
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
local views, taken = {}, {}
local denied = peek -- a peek takes nothing, as if an earlier layer had denied
for i = 0, layers - 1 do
  local key = KEYS[2 * i + 1]
  local arg = 5 + 4 * i
  local name = ARGV[arg]
  local kind = kindNamed(name)
  if not kind then
    return redis.error_reply('ERR sluice limit script: unknown policy kind ' .. tostring(name))
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
  reply[n + 1], reply[n + 2], reply[n + 3] = allowed, remaining, retry
  reply[n + 4], reply[n + 5] = reset, member or ''
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
