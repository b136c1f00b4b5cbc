#!/usr/bin/env bash
# Shows the rollout gate on the cluster that hack/up.sh started:
#   1. Zipf traffic at the deal-service pods builds the hot set;
#   2. the Deal schema changes (DEAL_SCHEMA_VERSION v1 → v2, another schema hash): the canary is held
#      at the pause step while warmgate preloads the hot deals into its new key space, then released;
#   3. a change that keeps the schema (a new env value): released at once, the gate phase is Skipped.
# Settings: WARMGATE_DEMO_WARMUP (seconds of traffic before the change, default 45),
# WARMGATE_DEMO_RATE (requests/s, default 60), WARMGATE_DEMO_TIMEOUT (per rollout, default 300).
# The Spanner emulator answers about 12 single-deal reads a second: a rate far above that keeps it
# saturated with the misses of cold pods, and every read then waits for the others.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$WARMGATE_ROOT/hack/local-env.sh"

WARMUP="${WARMGATE_DEMO_WARMUP:-45}"
RATE="${WARMGATE_DEMO_RATE:-60}"
TIMEOUT="${WARMGATE_DEMO_TIMEOUT:-300}"

[[ -f "$STATE_DIR/cluster" ]] || die "warmgate is not up: run hack/up.sh first"

gate() { kubectl -n demo get cpol deal-cache -o jsonpath="{.status.gate.$1}" 2>/dev/null; }
rollout() { kubectl -n demo get rollout deal-service -o jsonpath="{.status.$1}" 2>/dev/null; }

# watch_rollout LABEL: prints one line per change of the gate and rollout state until the rollout
# is Healthy on its new revision, and returns the seconds it took.
watch_rollout() {
  local label="$1" start=$SECONDS line last="" held_at="" phase
  while ((SECONDS - start < TIMEOUT)); do
    phase="$(gate phase)"
    line="$(printf 'rollout %-12s step %-2s paused=%-5s | gate %-9s coverage %-5s %s' \
      "$(rollout phase)" "$(rollout currentStepIndex)" \
      "$([[ -n "$(rollout pauseConditions)" ]] && echo yes || echo no)" \
      "$phase" "$(gate coverage)" "$(gate message)")"
    if [[ "$line" != "$last" ]]; then
      printf '  %4ss  %s\n' $((SECONDS - start)) "$line"
      last="$line"
    fi
    [[ -z "$held_at" && "$phase" =~ ^(Waiting|Warming)$ ]] && held_at=$((SECONDS - start))
    if [[ "$(rollout phase)" == Healthy && "$(rollout currentPodHash)" == "$(rollout stableRS)" \
          && "$(rollout currentStepIndex)" == 3 ]]; then
      log "$label: rollout Healthy after $((SECONDS - start))s (gate phase $(gate phase))"
      return 0
    fi
    sleep 0.5
  done
  die "$label: rollout not Healthy after ${TIMEOUT}s; see kubectl -n demo describe cpol deal-cache"
}

# prom QUERY: prints each series of an instant query on the Prometheus hack/up.sh started, one
# "labels value" line each (nothing when Prometheus is not up).
prom() {
  curl -fsS "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/query" --data-urlencode "query=$1" 2>/dev/null \
    | python3 -c "$PROM_PRINT" 2>/dev/null || true
}
PROM_PRINT='
import json, sys
for r in json.load(sys.stdin)["data"]["result"]:
    labels = ",".join(k + "=" + v for k, v in sorted(r["metric"].items())) or "(all)"
    print("    %s  %.3g" % (labels, float(r["value"][1])))
'

set_env() {
  kubectl -n demo patch rollout deal-service --type json -p \
    "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0/env/$1/value\",\"value\":\"$2\"}]" >/dev/null
}

main() {
  local cp
  cp="$(module_cp examples/deal-service)"
  log "Prometheus (watch it while this runs): http://127.0.0.1:$PROMETHEUS_PORT/api/v1/query?query=max%20by%20(policy,%20phase)%20(warmgate_gate_phase)%20%3D%3D%201"
  log "sending Zipf traffic ($RATE req/s over $DEMO_DEALS deals) to the pods; ${WARMUP}s to build the hot set"
  start_bg traffic java -cp "$cp" io.warmgate.example.deals.ZipfLoad --pods "$PODS_DIR/pods.tsv" \
    --deals "$DEMO_DEALS" --rate "$RATE" --duration 0
  sleep "$WARMUP"
  printf '\n\033[1m0. Plan: what a schema change would cost Spanner now (kubectl warmgate plan)\033[0m\n'
  "$WARMGATE_ROOT/operator/bin/kubectl-warmgate" plan deal-cache -n demo \
    --operator-url "http://127.0.0.1:$OPERATOR_HTTP_PORT" || warn "no plan (see above); the demo goes on"
  printf '\n\033[1m1. Schema change: DEAL_SCHEMA_VERSION v1 → v2\033[0m\n'
  # env[0] of the app container is DEAL_SCHEMA_VERSION, env[1] APP_REVISION (examples/local/rollout.yaml).
  set_env 0 v2
  watch_rollout "schema change"
  printf '  schema %s → %s, released at %s\n' "$(gate stableSchemaHash)" "$(gate canarySchemaHash)" "$(gate releasedAt)"

  printf '\n\033[1m2. Same schema: APP_REVISION 1 → 2\033[0m\n'
  set_env 1 2
  watch_rollout "same-schema change"

  kill -TERM -- "-$(cat "$PID_DIR/traffic.pid")" 2>/dev/null || true
  rm -f "$PID_DIR/traffic.pid"
  printf '\n'
  kubectl -n demo get cachepolicies,rollouts
  printf '\nAs Prometheus saw it (the dashboard in charts/warmgate/files/dashboards shows the same):\n'
  printf '  longest hold of a canary in the last 10 min (s):\n'
  prom 'max by (policy) (max_over_time(warmgate_gate_held_seconds[10m]))'
  printf '  peak origin reads in the last 10 min (ids/s, 30 s windows):\n'
  prom 'max_over_time(sum by (cache) (rate(warmgate_origin_keys_total[30s]))[10m:2s])'
  printf '  L1 hit ratio now:\n'
  prom 'sum by (cache) (rate(warmgate_cache_gets_total{tier="l1", result="hit"}[1m])) / sum by (cache) (rate(warmgate_cache_gets_total{tier="l1"}[1m]))'
  printf '  alerts pending or firing:\n'
  prom 'ALERTS'
}

main "$@"
