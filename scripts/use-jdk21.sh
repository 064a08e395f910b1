# Sourced by .ci/run, ./sluice and the bench scripts: makes JAVA_HOME and PATH point at a JDK 21+.
# Keeps the current java when it is 21 or newer; otherwise picks the newest JDK 21+ under /usr/lib/jvm.

# Prints the major version of the given java binary (e.g. 17, 21, 25), or 0.
java_major() {
  local line ver
  line="$("$1" -version 2>&1 | grep -m1 -E 'version "' || true)"
  ver="$(sed -E 's/.*version "([^"]+)".*/\1/' <<<"$line")"
  case "$ver" in
    1.*) ver="${ver#1.}" ;; # 1.8.0_x -> 8
  esac
  ver="${ver%%[.+-]*}"
  [[ "$ver" =~ ^[0-9]+$ ]] && echo "$ver" || echo 0
}

current_java=""
if [[ -n "${JAVA_HOME:-}" && -x "${JAVA_HOME}/bin/java" ]]; then
  current_java="${JAVA_HOME}/bin/java"
elif command -v java >/dev/null 2>&1; then
  current_java="$(command -v java)"
fi

current_major=0
[[ -n "$current_java" ]] && current_major="$(java_major "$current_java")"

if (( current_major < 21 )); then
  best_home=""
  best_major=0
  for dir in /usr/lib/jvm/*/; do
    dir="${dir%/}"
    [[ -L "$dir" ]] && continue # skip aliases such as default-java
    [[ -x "$dir/bin/java" && -x "$dir/bin/javac" ]] || continue
    major="$(java_major "$dir/bin/java")"
    if (( major >= 21 && major > best_major )); then
      best_major="$major"
      best_home="$dir"
    fi
  done
  if [[ -z "$best_home" ]]; then
    echo "error: Sluice needs JDK 21+, found ${current_major} at '${current_java:-none}' and none under /usr/lib/jvm" >&2
    return 1
  fi
  export JAVA_HOME="$best_home"
  export PATH="$JAVA_HOME/bin:$PATH"
elif [[ -z "${JAVA_HOME:-}" ]]; then
  JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$current_java")")")"
  export JAVA_HOME
fi

