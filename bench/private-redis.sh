# Sourced by bench/prepare.sh (so by every bench/run-*.sh script that sources it) and by the scripts that need
# a private Redis but no build, from the repository root.
# shellcheck shell=bash

# Starts a private redis-server (no persistence) on the first free port from 6395, its files in folder $1, and
# waits until it answers; sets `port` and `redis_pid`, and stops it and removes $1 when the script exits.
start_private_redis() {
  local dir="$1"
  port=6395
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" \
    --logfile "$dir/redis.log" &
  redis_pid=$!
  # shellcheck disable=SC2064 # the folder is fixed now; the port and pid are read at exit
  trap "redis-cli -p \"\$port\" shutdown nosave >/dev/null 2>&1 || kill \"\$redis_pid\" 2>/dev/null; rm -rf '$dir'" EXIT
  for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
}
