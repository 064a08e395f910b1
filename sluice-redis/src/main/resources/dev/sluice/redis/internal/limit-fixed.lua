-- Fixed window: state key "<window start>|<count>|<window>", windows aligned on the epoch (nowMod). Also the
-- table of builders: each kind but gcra is built when a call first uses it (kindNamed).
-- Keys: the state key only. Cost: one GET, one SET when permits are taken.

-- now mod w, for 0 < w <= 2^52: the offset of now into its epoch-aligned window of length w.
local function nowMod(w)
  local cached = nowMods[w]
  if cached then
    return cached
  end
  local m = fmod(SEC, w)
  local seconds = nowSec < 0 and -nowSec or nowSec
  local s = 0 -- seconds * 1e9 mod w
  if m ~= 0 then
    local product = seconds * m
    if product < TWO53 then
      s = fmod(product, w)
    elseif fmod(w, SEC) == 0 then
      s = fmod(seconds, w / SEC) * SEC
    else
      local x, bit = seconds, 1
      while bit * 2 <= x do
        bit = bit * 2
      end
      while bit >= 1 do
        s = s * 2
        if s >= w then
          s = s - w
        end
        if x >= bit then
          x = x - bit
          s = s + m
          if s >= w then
            s = s - w
          end
        end
        bit = bit / 2
      end
    end
  end
  if nowSec < 0 and s > 0 then
    s = w - s -- now before the epoch: (-x * 1e9) mod w
  end
  local result = fmod(s + nowNs, w)
  nowMods[w] = result
  return result
end

-- The kinds by name, each built when a call first uses it (kindNamed) and kept while the chunk is: a script's
-- call builds only the kinds it uses, a library of Redis functions builds each once.
local builders = {}
local built = {}

function builders.gcra()
  return gcra
end

-- The kind of layer named name ('gcra', 'fixed', 'counter', 'log', 'leases'), or nil if there is none.
local function kindNamed(name)
  local kind = built[name]
  if not kind then
    local build = builders[name]
    kind = build and build()
    built[name] = kind
  end
  return kind
end

function builders.fixed()
  local function save(view)
    local value = at(view.start) .. '|' .. format('%d|%d', view.count, view.window)
    call('SET', view.key, value, 'PX', ttl(view.start + view.window))
  end

  return {
    load = function(key, _, window)
      local view = { key = key, window = window }
      local stored = call('GET', key)
      if stored then
        local bar = find(stored, '|', 22, true)
        view.start = since(stored)
        view.count = tonumber(sub(stored, 22, bar - 1))
        local old = tonumber(sub(stored, bar + 1))
        if old ~= window then
          -- re-expressed as of now, and kept whatever this call decides
          if view.start + old > 0 then
            view.start = -nowMod(window)
            save(view)
          else
            view.start, view.count = nil, nil
            call('DEL', key)
          end
        end
      end
      return view
    end,

    decide = function(view, limit, permits, commit)
      local window = view.window
      local start, now = -nowMod(window), 0
      if view.start and view.start > start then
        start, now = view.start, view.start
      end
      local count = view.start == start and view.count or 0
      local finish = start + window
      if count + permits > limit then
        return 0, max(0, limit - count), finish - now, finish
      end
      if commit then
        view.start, view.count, view.dirty = start, count + permits, true
      end
      return 1, limit - count - permits, 0, finish
    end,

    save = save,

    -- The current window's count goes down, not below zero; earlier windows are over already.
    refund = function(view, _, permits)
      local start = -nowMod(view.window)
      if view.start and view.start > start then
        start = view.start
      end
      if view.start ~= start then
        return
      end
      view.count = max(0, view.count - permits)
      if view.count == 0 then
        call('DEL', view.key)
      else
        save(view)
      end
    end,
  }
end
