#!/usr/bin/env bash
# Settings and helpers shared by hack/up.sh, hack/demo.sh and hack/down.sh. Source it after lib.sh.

STATE_DIR="${WARMGATE_STATE_DIR:-$WARMGATE_ROOT/.warmgate}"
PID_DIR="$STATE_DIR/pids"
LOG_DIR="$STATE_DIR/logs"
PODS_DIR="$STATE_DIR/pods"
KWOK_WORKDIR="$STATE_DIR/kwok"
CLUSTER_NAME="${WARMGATE_CLUSTER_NAME:-warmgate}"
REDIS_PORT="${WARMGATE_REDIS_PORT:-16379}"
SPANNER_PORT="${WARMGATE_SPANNER_PORT:-19010}"
OPERATOR_HTTP_PORT="${WARMGATE_OPERATOR_HTTP_PORT:-18080}"
WEBHOOK_PORT="${WARMGATE_WEBHOOK_PORT:-18443}"
ARGO_HEALTHZ_PORT="${WARMGATE_ARGO_HEALTHZ_PORT:-18081}"
ARGO_METRICS_PORT="${WARMGATE_ARGO_METRICS_PORT:-18090}"
PROMETHEUS_PORT="${WARMGATE_PROMETHEUS_PORT:-19090}"
DEMO_DEALS="${WARMGATE_DEMO_DEALS:-5000}"
SPANNER_PROJECT=warmgate-demo
SPANNER_INSTANCE=demo
SPANNER_DATABASE=deals
SPANNER_EMULATOR_BIN=/usr/lib/google-cloud-sdk/bin/cloud_spanner_emulator/emulator_main
export KUBECONFIG="$KWOK_WORKDIR/clusters/$CLUSTER_NAME/kubeconfig.yaml"

# module_cp MODULE: the runtime classpath of a built module (classes + dependencies).
module_cp() {
  local dir="$WARMGATE_ROOT/$1/target"
  [[ -f "$dir/classpath.txt" ]] || die "$1 is not built: run hack/up.sh (or mvn -pl $1 -am package -DskipTests)"
  echo "$dir/classes:$(cat "$dir/classpath.txt")"
}

# start_bg NAME CMD...: starts CMD in the background with its output in $LOG_DIR/NAME.log and its
# PID in $PID_DIR/NAME.pid (its own process group, so hack/down.sh can stop it and its children).
start_bg() {
  local name="$1"; shift
  setsid "$@" >>"$LOG_DIR/$name.log" 2>&1 < /dev/null &
  echo $! > "$PID_DIR/$name.pid"
  log "started $name (pid $!, log $LOG_DIR/$name.log)"
}

# wait_for WHAT SECONDS CMD...: runs CMD every half second until it succeeds; on a terminal it shows
# how long it has been waiting.
wait_for() {
  local what="$1" limit="$2"; shift 2
  local start=$SECONDS tty=0
  [[ -t 2 ]] && tty=1
  while ! "$@" >/dev/null 2>&1; do
    if ((SECONDS - start >= limit)); then
      ((tty)) && printf '\n' >&2
      die "timed out after ${limit}s waiting for $what (logs: $LOG_DIR)"
    fi
    ((tty)) && printf '\r   waiting for %s ... %ds ' "$what" $((SECONDS - start)) >&2
    sleep 0.5
  done
  ((tty)) && printf '\r\033[K' >&2
  log "$what ($((SECONDS - start))s)"
}

# wait_condition KIND/NAME CONDITION SECONDS [kubectl args...]: waits until the object exists and its
# status condition is True (kubectl wait fails at once while an object has no conditions yet).
wait_condition() {
  local object="$1" condition="$2" limit="$3"; shift 3
  wait_for "$object $condition" "$limit" bash -c "[[ \$(kubectl get $object $* \
    -o jsonpath='{.status.conditions[?(@.type==\"$condition\")].status}') == True ]]"
}
