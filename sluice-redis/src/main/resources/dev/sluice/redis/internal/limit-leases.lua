-- Concurrency (leases): state key a sorted set, all scores 0, of "<expiry>|<lease id>|<permits>" (lexical
-- order = expiry order); auxiliary key the permits it holds, expired leases included. A lease ends when
-- released or when its expiry passes.
-- Keys: the state key and the auxiliary key. Cost: a GET, a range of the expired leases and the last one;
-- a denial reads leases in growing chunks until enough would have ended.

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
