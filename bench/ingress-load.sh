# Sourced by bench/run-ingress.sh and bench/run-ingress-boot.sh: their options (`ingress_options "$@"`, first) and
# the load of the ingress benchmarks, the same for each server (after prepare.sh). The caller defines
# `server_command LIMIT`, which execs its server (so that $server is its pid) on 127.0.0.1:$port with the limit
# given (open or exact:N) and prints a line starting with `ready` once it listens; `ingress_load NAME` loads it:
#   open regime:  after a 5 s warm-up of each path, `rounds` rounds; in each, every path in turn (the order
#                 rotated each round): `seconds` s with `connections` connections, then `seconds` s with one;
#   exact regime: a new server allowing `exact` requests an hour; 5 s of load on each limited path.
# It leaves wrk's outputs in $raw, removed on exit (open-MODE-ROUND.txt, one-MODE-ROUND.txt, exact-MODE.txt), with
# the server's CPU time (user and system, clock ticks) over each run with `connections` connections
# (cpu-MODE-ROUND.txt; clock-ticks.txt: ticks a second), and sets `exact` and `machine`.
# shellcheck shell=bash

ingress_options() { # "$@" of the script: sets rounds, seconds, connections, results; checks that wrk is there
  rounds=12
  seconds=4
  connections=32
  results=bench/results
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --rounds) rounds="$2"; shift 2 ;;
      --seconds) seconds="$2"; shift 2 ;;
      --connections) connections="$2"; shift 2 ;;
      --results) results="$2"; shift 2 ;;
      *) echo "unknown argument $1 (options: --rounds R --seconds S --connections C --results DIR)" >&2; exit 2 ;;
    esac
  done
  command -v wrk >/dev/null || { echo "wrk is not installed (Debian: apt-get install wrk)" >&2; exit 1; }
}

start() { # NAME LIMIT
  server_command "$2" > "$raw/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1 600); do grep -q '^ready' "$raw/server.log" && return 0; sleep 0.1; done
  echo "$1 did not start:" >&2; cat "$raw/server.log" >&2; exit 1
}
stop() { kill "$server"; wait "$server" 2>/dev/null || true; }
server_cpu() { awk '{print $14 + $15}' "/proc/$server/stat"; } # the server's user and system time, in clock ticks
url() { echo "http://127.0.0.1:$port/$1/hello"; }

ingress_load() { # NAME
  local modes=(plain noop fields sluice bucket4j) mode round k m cpu
  raw=$(mktemp -d)
  getconf CLK_TCK > "$raw/clock-ticks.txt"
  trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$raw"' EXIT
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  start "$1" open
  for mode in "${modes[@]}"; do
    wrk -t1 -c"$connections" -d5s "$(url "$mode")" > /dev/null # warm-up: JIT, connections
  done
  for round in $(seq 1 "$rounds"); do
    for k in "${!modes[@]}"; do
      mode=${modes[$(( (k + round) % ${#modes[@]} ))]}
      cpu=$(server_cpu)
      wrk -t1 -c"$connections" -d"${seconds}s" --latency "$(url "$mode")" > "$raw/open-$mode-$round.txt"
      echo $(( $(server_cpu) - cpu )) > "$raw/cpu-$mode-$round.txt"
      wrk -t1 -c1 -d"${seconds}s" --latency "$(url "$mode")" > "$raw/one-$mode-$round.txt"
    done
    echo "round $round: $(for m in "${modes[@]}"; do printf '%s %s  ' "$m" "$(awk '/Requests\/sec/ {print $2}' "$raw/open-$m-$round.txt")"; done)"
  done
  stop
  exact=5000
  start "$1" "exact:$exact"
  for mode in sluice bucket4j; do
    wrk -t1 -c"$connections" -d5s "$(url "$mode")" > "$raw/exact-$mode.txt"
  done
  stop
  machine="$(nproc) vCPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), shared"
}
