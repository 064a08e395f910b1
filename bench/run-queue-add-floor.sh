#!/usr/bin/env bash
# The floor of a bulk add in this layout: Redis's CPU per job for a script that does only what every added job must
# cost (its record into B:j, its payload into B:p, its entry into a waiting set: one HSET, one HSET and one ZADD per
# call of 500 jobs, with records and payloads of the sizes benchmark A's jobs have), sent pipelined with
# `redis-cli --pipe` so that no wake-up between calls counts. Compare it with `RedisQueueProbe`'s "add ... µs Redis
# CPU/job" measured in the same minutes (the machine's speed drifts). Starts a private redis-server on a free port
# (no persistence) and stops it. Heavy: run it alone (flock /tmp/sluice-build.lock ...).
#
# Usage: bench/run-queue-add-floor.sh [--calls 80] [--rounds 3]
set -euo pipefail
cd "$(dirname "$0")/.."

calls=80
rounds=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --calls) calls="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    *) echo "unknown argument $1 (options: --calls N, --rounds N)" >&2; exit 2 ;;
  esac
done

# shellcheck source=private-redis.sh
source bench/private-redis.sh
scratch="$(mktemp -d /tmp/sluice-add-floor.XXXXXX)"
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

cpu() { redis-cli -p "$port" info cpu | awk -F: '/^used_cpu_(sys|user):/ { s += $2 } END { printf "%.6f", s }'; }
for round in $(seq "$rounds"); do
  redis-cli -p "$port" flushall >/dev/null
  before="$(cpu)"
  redis-cli -p "$port" --pipe < "$scratch/calls.resp" >/dev/null
  after="$(cpu)"
  awk -v a="$before" -v b="$after" -v n="$((calls * 500))" -v r="$round" \
    'BEGIN { printf "round %d: %.2f us of Redis CPU per job (record, payload, waiting entry)\n", r, (b - a) * 1e6 / n }'
done
