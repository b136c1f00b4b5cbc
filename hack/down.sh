#!/usr/bin/env bash
# Stops everything hack/up.sh started, by the PIDs it recorded (and the kwok cluster it created),
# nothing else. Settings: WARMGATE_STATE_DIR (default .warmgate).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$WARMGATE_ROOT/hack/local-env.sh"

stop_pid_file() {
  local file="$1" name pid
  name="$(basename "$file" .pid)"
  pid="$(cat "$file")"
  if kill -0 "$pid" 2>/dev/null; then
    # start_bg ran each service in its own process group: stop the group (e.g. the pod processes).
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    log "stopped $name (pid $pid)"
  fi
  rm -f "$file"
}

# Pods first (their processes belong to local-pods), then the operator, then the rest.
for name in local-pods operator rollouts-controller spanner-emulator redis; do
  [[ -f "$PID_DIR/$name.pid" ]] && stop_pid_file "$PID_DIR/$name.pid"
done
for file in "$PID_DIR"/*.pid; do
  [[ -e "$file" ]] && stop_pid_file "$file"
done
if [[ -f "$STATE_DIR/cluster" ]]; then
  KWOK_WORKDIR="$KWOK_WORKDIR" "$KWOK_BIN/kwokctl" delete cluster --name "$(cat "$STATE_DIR/cluster")" \
    >/dev/null 2>&1 || warn "kwokctl delete cluster failed; see $KWOK_WORKDIR"
  rm -f "$STATE_DIR/cluster"
  log "deleted kwok cluster"
fi
log "warmgate is down"
