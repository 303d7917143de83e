# Shared by the test-server scripts: resolve a Java server through Maven,
# start it in the background, stop it. Source it; do not run it.

# maven_resolve DIR GROUP:ARTIFACT:VERSION: copies the artifact and its
# dependencies into DIR/lib once (DIR/.installed marks it done).
maven_resolve() {
  local dir=$1 coords=$2
  [ -f "$dir/.installed" ] && return 0
  command -v mvn >/dev/null || { echo "mvn is required" >&2; return 1; }
  local g a v
  IFS=: read -r g a v <<<"$coords"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/lib"
  cat > "$dir.tmp/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>agentmem</groupId><artifactId>test-server</artifactId><version>1</version>
  <dependencies><dependency><groupId>$g</groupId><artifactId>$a</artifactId><version>$v</version></dependency></dependencies>
</project>
POM
  (cd "$dir.tmp" && mvn -q -B dependency:copy-dependencies -DoutputDirectory=lib >/dev/null) ||
    { echo "could not resolve $coords through Maven" >&2; return 1; }
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
  touch "$dir/.installed"
}

# start_server RUN_DIR UP_CMD COMMAND...: runs COMMAND in the background
# from RUN_DIR (pid in RUN_DIR/pid, output in RUN_DIR/server.log) and waits
# up to 60 s for UP_CMD to succeed.
start_server() {
  local run=$1 up=$2
  shift 2
  (cd "$run" && exec nohup "$@" >"$run/server.log" 2>&1) &
  echo $! >"$run/pid"
  local t0=$SECONDS
  until $up; do
    if ! kill -0 "$(cat "$run/pid")" 2>/dev/null || [ $((SECONDS - t0)) -gt 60 ]; then
      echo "the server did not start; log:" >&2; tail -n 20 "$run/server.log" >&2; return 1
    fi
    sleep 0.2
  done
}

# stop_server RUN_DIR: stops the process of RUN_DIR/pid (TERM, then KILL
# after 30 s) and removes RUN_DIR.
stop_server() {
  local run=$1
  if [ -f "$run/pid" ]; then
    local pid; pid=$(cat "$run/pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$run"
}
