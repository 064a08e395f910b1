-- Sliding counter: state key "<window start>|<current>|<previous>|<window>": the counts of the current and the
-- previous epoch-aligned window, the previous one weighted by how much of it the sliding window still covers.
-- Keys: the state key only. Cost: one GET, one SET when permits are taken; mulDiv only past 2^53.

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
