-- Sliding log: state key a list of "<time>|<permits>", oldest first, one entry per instant; auxiliary key the
-- permits the list holds, expired entries included. Exact: a take is allowed when the permits within the last
-- window plus the take fit the limit.
-- Keys: the state key and the auxiliary key. Cost: a GET and the list's last entry; entries read in growing
-- chunks only as far back as a decision needs; expired entries trimmed when permits are taken.

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
