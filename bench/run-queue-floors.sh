#!/usr/bin/env bash
# The floors of a bulk add and of processing in this layout: Redis's CPU per job for scripts that do only the
# commands every job must cost, sent pipelined with `redis-cli --pipe` so that no wake-up between calls counts.
# - add: its record into B:j, its payload into B:p, its entry into a waiting set: one HSET, one HSET and one ZADD
#   per call of 500 jobs, with records and payloads of the sizes benchmark A's jobs have;
# - processing: calls of a plain queue's worker at concurrency 100 (50 jobs a call), each ending the jobs the call
#   before claimed and claiming 50 more: ZPOPMIN of the waiting set, HMGET of records and of payloads, SADD to the
#   worker's set, ZADD of its lease and HSET of the jobs' attempts (32 bytes each); SREM from the worker's set,
#   HDEL of records, attempts and payloads, one HINCRBY of a counter;
# - one job a call, one call in flight (`redis-benchmark -c 1`, the floor of concurrency 1): the same commands for
#   one job a call (the job the call before claimed named in a key: one GET and one SET more), against a script
#   that does nothing, in turns: calls/s of each, and the time per call the commands add to a round trip.
# Compare them with `RedisQueueProbe`'s "add ... µs Redis CPU/job" and "process ... µs/job" (with
# -Dsluice.probe.keepNone=true) measured in the same minutes (the machine's speed drifts). Starts a private
# redis-server on a free port (no persistence) and stops it. Heavy: run it alone (flock /tmp/sluice-build.lock ...).
#
# With --json FILE it also writes the medians there ({"addRedisCpuUsPerJob": ..., "processRedisCpuUsPerJob": ...,
# "rounds": ...}), as bench/run-queue-redis.sh records them beside its sitting.
#
# Usage: bench/run-queue-floors.sh [--calls 80] [--rounds 3] [--json FILE]
set -euo pipefail
cd "$(dirname "$0")/.."

calls=80
rounds=3
json=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --calls) calls="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --json) json="$2"; shift 2 ;;
    *) echo "unknown argument $1 (options: --calls N, --rounds N, --json FILE)" >&2; exit 2 ;;
  esac
done

# shellcheck source=private-redis.sh
source bench/private-redis.sh
scratch="$(mktemp -d /tmp/sluice-floors.XXXXXX)"
start_private_redis "$scratch"

script='local j, p, w = KEYS[1] .. ":j", KEYS[1] .. ":p", KEYS[1] .. ":w"
local rj, rp, rw = {}, {}, {}
for i = 1, #ARGV, 4 do
  rj[#rj + 1] = ARGV[i]; rj[#rj + 1] = ARGV[i + 1]
  rp[#rp + 1] = ARGV[i]; rp[#rp + 1] = ARGV[i + 2]
  rw[#rw + 1] = 0; rw[#rw + 1] = ARGV[i + 3]
end
redis.call("HSET", j, unpack(rj))
redis.call("HSET", p, unpack(rp))
redis.call("ZADD", w, unpack(rw))
return #ARGV / 4'
sha="$(redis-cli -p "$port" script load "$script")"

process='local j, p, w, a, m = KEYS[1] .. ":j", KEYS[1] .. ":p", KEYS[1] .. ":w", KEYS[1] .. ":a:w1", KEYS[1] .. ":m"
if #ARGV > 1 then
  local ended, fields = {}, {}
  for i = 2, #ARGV do
    ended[#ended + 1] = ARGV[i]
    fields[#fields + 1] = ARGV[i]
    fields[#fields + 1] = "\255" .. ARGV[i]
  end
  redis.call("SREM", a, unpack(ended))
  redis.call("HDEL", j, unpack(fields))
  redis.call("HDEL", p, unpack(ended))
  redis.call("HINCRBY", m, "completed", #ended)
end
local popped = redis.call("ZPOPMIN", w, tonumber(ARGV[1]))
if #popped == 0 then
  return 0
end
local ids, attempts = {}, {}
for i = 1, #popped, 2 do
  local id = string.sub(popped[i], 17)
  ids[#ids + 1] = id
  attempts[#attempts + 1] = "\255" .. id
  attempts[#attempts + 1] = "tttttttttttttttttttttttttttttttt"
end
redis.call("HMGET", j, unpack(ids))
redis.call("SADD", a, unpack(ids))
redis.call("ZADD", KEYS[1] .. ":a", 1, "w1")
redis.call("HSET", j, unpack(attempts))
redis.call("HMGET", p, unpack(ids))
return #ids'
process_sha="$(redis-cli -p "$port" script load "$process")"

one='local j, p, w, a, m = KEYS[1] .. ":j", KEYS[1] .. ":p", KEYS[1] .. ":w", KEYS[1] .. ":a:w1", KEYS[1] .. ":m"
local last = redis.call("GET", KEYS[1] .. ":last")
if last then
  redis.call("SREM", a, last)
  redis.call("HDEL", j, last, "\255" .. last)
  redis.call("HDEL", p, last)
  redis.call("HINCRBY", m, "completed", 1)
end
local popped = redis.call("ZPOPMIN", w, 1)
if #popped == 0 then
  return 0
end
local id = string.sub(popped[1], 17)
redis.call("HMGET", j, id)
redis.call("SADD", a, id)
redis.call("ZADD", KEYS[1] .. ":a", 1, "w1")
redis.call("HSET", j, "\255" .. id, "tttttttttttttttttttttttttttttttt")
redis.call("HMGET", p, id)
redis.call("SET", KEYS[1] .. ":last", id)
return 1'
one_sha="$(redis-cli -p "$port" script load "$one")"
noop_sha="$(redis-cli -p "$port" script load "return 0")"

# the calls in Redis's protocol: per job its id, a record of 120 bytes, a payload of 100 and a waiting entry
python3 - "$calls" "$sha" > "$scratch/calls.resp" <<'PY'
import sys
calls, sha = int(sys.argv[1]), sys.argv[2]
out = sys.stdout.buffer
record, payload = b'\xdc\x00\x22' + b'r' * 117, b'{"i":0,"payload":"' + b'p' * 78 + b'"}'
n = 0
for _ in range(calls):
    args = [b'EVALSHA', sha.encode(), b'1', b'floor']
    for _ in range(500):
        n += 1
        jid = str(n).encode()
        args += [jid, record, payload, b'%016x' % (2 ** 52 + n) + jid]
    out.write(b'*%d\r\n' % len(args))
    for a in args:
        out.write(b'$%d\r\n%s\r\n' % (len(a), a))
PY

# the worker's calls: the first claims 50, each after ends the 50 the one before claimed and claims 50
python3 - "$calls" "$process_sha" > "$scratch/process.resp" <<'PY'
import sys
calls, sha = int(sys.argv[1]), sys.argv[2]
out = sys.stdout.buffer
batch = 50
for k in range(calls * 500 // batch + 1):
    args = [b'EVALSHA', sha.encode(), b'1', b'floor', str(batch).encode()]
    args += [str(n).encode() for n in range((k - 1) * batch + 1, k * batch + 1) if n > 0]
    out.write(b'*%d\r\n' % len(args))
    for a in args:
        out.write(b'$%d\r\n%s\r\n' % (len(a), a))
PY

cpu() { redis-cli -p "$port" info cpu | awk -F: '/^used_cpu_(sys|user):/ { s += $2 } END { printf "%.6f", s }'; }
for round in $(seq "$rounds"); do
  redis-cli -p "$port" flushall >/dev/null
  before="$(cpu)"
  redis-cli -p "$port" --pipe < "$scratch/calls.resp" >/dev/null
  after="$(cpu)"
  redis-cli -p "$port" --pipe < "$scratch/process.resp" >/dev/null
  processed="$(cpu)"
  left="$(redis-cli -p "$port" hlen floor:j)"
  awk -v a="$before" -v b="$after" -v c="$processed" -v n="$((calls * 500))" -v r="$round" -v left="$left" \
    'BEGIN { printf "round %d: add %.2f, processing %.2f us of Redis CPU per job (%d records left)\n", r,
      (b - a) * 1e6 / n, (c - b) * 1e6 / n, left }' | tee -a "$scratch/rounds.txt"
done

# calls/s of 20,000 calls of script $1 with one call in flight
one_in_flight() {
  local t0 t1
  t0="$(date +%s%N)"
  redis-benchmark -p "$port" -c 1 -n 20000 -q EVALSHA "$1" 1 floor >/dev/null
  t1="$(date +%s%N)"
  awk -v t="$((t1 - t0))" 'BEGIN { printf "%.0f", 20000 / (t / 1e9) }'
}
for round in $(seq "$rounds"); do
  redis-cli -p "$port" flushall >/dev/null
  redis-cli -p "$port" --pipe < "$scratch/calls.resp" >/dev/null
  jobs="$(one_in_flight "$one_sha")"
  noop="$(one_in_flight "$noop_sha")"
  awk -v j="$jobs" -v n="$noop" -v r="$round" 'BEGIN { f = "round %d, one call in flight: %d jobs/s one a call,"
    printf f " %d no-op calls/s (%.2fx), %.1f us more per call\n", r, j, n, j / n, 1e6 / j - 1e6 / n }' \
    | tee -a "$scratch/one.txt"
done

if [[ -n "$json" ]]; then
  python3 - "$scratch/rounds.txt" "$scratch/one.txt" > "$json" <<'PY'
import json, statistics, sys
rounds = [line.split() for line in open(sys.argv[1])]
add = [float(r[3].rstrip(",")) for r in rounds]
process = [float(r[5]) for r in rounds]
one = [line.split() for line in open(sys.argv[2])]
jobs = [float(r[6]) for r in one]
noop = [float(r[11]) for r in one]
print(json.dumps({"addRedisCpuUsPerJob": statistics.median(add), "processRedisCpuUsPerJob": statistics.median(process),
                  "oneInFlightJobsPerSecond": statistics.median(jobs),
                  "oneInFlightNoopCallsPerSecond": statistics.median(noop),
                  "oneInFlightExtraUsPerCall": statistics.median(1e6 / j - 1e6 / n for j, n in zip(jobs, noop)),
                  "rounds": [{"add": a, "process": p} for a, p in zip(add, process)],
                  "oneInFlightRounds": [{"jobsPerSecond": j, "noopCallsPerSecond": n} for j, n in zip(jobs, noop)]}))
PY
fi
