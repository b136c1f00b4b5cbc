#!/usr/bin/env bash
# Brings up warmgate on this machine and shows it working:
#   Redis (the Valkey-compatible L2), the Cloud Spanner emulator seeded with deals, a kwok cluster
#   with the Argo Rollouts controller, the warmgate operator (with its pod-injection webhook), the
#   example CachePolicy and deal-service Rollout, whose pods run as local processes (local-pods),
#   and a Prometheus scraping the operator, the pods and the Argo controller with warmgate's alerts.
# Everything runs as processes of this user, recorded by PID under $WARMGATE_STATE_DIR; hack/down.sh
# stops them. Then: hack/demo.sh (the release plan; schema change → held, preloaded, released;
# same schema → skipped).
# Settings: WARMGATE_STATE_DIR (default .warmgate), WARMGATE_REDIS_PORT (16379),
# WARMGATE_SPANNER_PORT (19010), WARMGATE_PROMETHEUS_PORT (19090), WARMGATE_DEMO_DEALS (5000),
# WARMGATE_CLUSTER_NAME (warmgate),
# WARMGATE_SKIP_BUILD=1 to reuse the last build.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$WARMGATE_ROOT/hack/local-env.sh"

build() {
  if [[ "${WARMGATE_SKIP_BUILD:-0}" == 1 ]]; then return; fi
  log "building the operator, deal-service and local-pods (mvn package, tests skipped)"
  (cd "$WARMGATE_ROOT" && mvn -B -q -ntp -Dstyle.color=never package -DskipTests \
    -pl test-support,operator,examples/deal,examples/deal-service,examples/local-pods -am)
}

start_redis() {
  start_bg redis redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no
  wait_for "Redis on :$REDIS_PORT" 20 redis-cli -p "$REDIS_PORT" ping
}

start_spanner() {
  start_bg spanner-emulator "$SPANNER_EMULATOR_BIN" --host_port "127.0.0.1:$SPANNER_PORT"
  wait_for "Spanner emulator on :$SPANNER_PORT" 30 bash -c "exec 3<>/dev/tcp/127.0.0.1/$SPANNER_PORT"
  log "creating the deals database and seeding $DEMO_DEALS deals"
  local create_cp seed_cp
  create_cp="$(module_cp test-support)"
  seed_cp="$(module_cp examples/deal)"
  export SPANNER_EMULATOR_HOST="127.0.0.1:$SPANNER_PORT" GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS=false
  java -cp "$create_cp" io.warmgate.testing.EmulatorDatabase \
    "$SPANNER_PROJECT" "$SPANNER_INSTANCE" "$SPANNER_DATABASE" >>"$LOG_DIR/seed.log" 2>&1 \
    || die "creating the database failed: see $LOG_DIR/seed.log"
  java -cp "$seed_cp" io.warmgate.example.deal.DealSeeder \
    "$SPANNER_PROJECT" "$SPANNER_INSTANCE" "$SPANNER_DATABASE" "$DEMO_DEALS" >>"$LOG_DIR/seed.log" 2>&1 \
    || die "seeding failed: see $LOG_DIR/seed.log"
  unset SPANNER_EMULATOR_HOST GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS
}

start_cluster() {
  log "creating kwok cluster '$CLUSTER_NAME' (binary runtime: apiserver, etcd, controller-manager, scheduler, kwok)"
  mkdir -p "$KWOK_WORKDIR"
  KWOK_WORKDIR="$KWOK_WORKDIR" "$KWOK_BIN/kwokctl" create cluster --name "$CLUSTER_NAME" --runtime binary \
    --kube-apiserver-binary "$K8S_BIN/kube-apiserver" \
    --kube-controller-manager-binary "$K8S_BIN/kube-controller-manager" \
    --kube-scheduler-binary "$K8S_BIN/kube-scheduler" \
    --etcd-binary "$ETCD_BIN/etcd" \
    --kwok-controller-binary "$KWOK_BIN/kwok" \
    --config "$WARMGATE_ROOT/hack/kwok/pod-stages.yaml" \
    --wait 120s >>"$LOG_DIR/kwokctl.log" 2>&1 || die "kwokctl create cluster failed: see $LOG_DIR/kwokctl.log"
  echo "$CLUSTER_NAME" > "$STATE_DIR/cluster"
  kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-0
  annotations: {kwok.x-k8s.io/node: fake}
  labels: {type: kwok, kubernetes.io/hostname: kwok-node-0, kubernetes.io/os: linux}
status:
  capacity: {cpu: "64", memory: 256Gi, pods: "500"}
  allocatable: {cpu: "64", memory: 256Gi, pods: "500"}
YAML
  wait_condition node/kwok-node-0 Ready 60
  log "installing the Argo Rollouts CRDs and starting its controller"
  kubectl apply --server-side -f "$ARGO_CRDS_DIR" >/dev/null
  wait_condition crd/rollouts.argoproj.io Established 60
  kubectl create namespace argo-rollouts --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  start_bg rollouts-controller "$ARGO_BIN/rollouts-controller" --kubeconfig "$KUBECONFIG" \
    --namespace argo-rollouts --healthzPort "$ARGO_HEALTHZ_PORT" --metricsPort "$ARGO_METRICS_PORT" \
    --leader-elect=false
  wait_for "Argo Rollouts controller" 60 curl -fsS "http://127.0.0.1:$ARGO_HEALTHZ_PORT/healthz"
}

start_operator() {
  log "installing the CachePolicy CRD and starting the warmgate operator"
  local cp
  cp="$(module_cp operator)"
  kubectl apply --server-side -f "$WARMGATE_ROOT/crds/" >/dev/null
  kubectl create namespace warmgate-system --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  sed "s/127.0.0.1:18443/127.0.0.1:$WEBHOOK_PORT/" "$WARMGATE_ROOT/examples/local/webhook.yaml" | kubectl apply -f - >/dev/null
  start_bg operator env KUBECONFIG="$KUBECONFIG" POD_NAMESPACE=warmgate-system \
    WARMGATE_LEADER_ELECTION=false WARMGATE_HTTP_PORT="$OPERATOR_HTTP_PORT" WARMGATE_LOG_FORMAT=text \
    WARMGATE_WEBHOOK_ENABLED=true WARMGATE_WEBHOOK_PORT="$WEBHOOK_PORT" WARMGATE_WEBHOOK_HOSTS=127.0.0.1,localhost \
    java -cp "$cp" io.warmgate.operator.WarmgateOperator
  wait_for "operator ready" 90 curl -fsS "http://127.0.0.1:$OPERATOR_HTTP_PORT/readyz"
}

# local_manifest FILE: examples/local/FILE with the ports of this run.
local_manifest() {
  sed -e "s/127.0.0.1:16379/127.0.0.1:$REDIS_PORT/; s/127.0.0.1:19010/127.0.0.1:$SPANNER_PORT/" \
    "$WARMGATE_ROOT/examples/local/$1"
}

start_app() {
  log "applying the example: namespace demo, CachePolicy deal-cache, Rollout deal-service (4 pods)"
  local pods_cp app_cp
  pods_cp="$(module_cp examples/local-pods)"
  app_cp="$(module_cp examples/deal-service)"
  kubectl apply -f "$WARMGATE_ROOT/examples/local/namespace.yaml" >/dev/null
  # The policy first: the webhook injects the agent's settings from it into every new pod.
  local_manifest cachepolicy.yaml | kubectl apply -f - >/dev/null
  local_manifest rollout.yaml | kubectl apply -f - >/dev/null
  start_bg local-pods java -cp "$pods_cp" io.warmgate.localpods.LocalPodsMain \
    --kubeconfig "$KUBECONFIG" --namespace demo --selector app=deal-service --container app \
    --workdir "$PODS_DIR" -- java -cp "$app_cp" io.warmgate.example.deals.DealService
  wait_for "Rollout deal-service Healthy" 180 bash -c \
    "[[ \$(kubectl -n demo get rollout deal-service -o jsonpath='{.status.phase}') == Healthy ]]"
  wait_for "4 deal-service processes serving" 90 all_pods_serve 4
  wait_condition cpol/deal-cache Ready 60 -n demo
}

# all_pods_serve N: pods.tsv lists at least N pods, each on a port of its own whose /healthz answers
# with that pod's name (a port that another pod's process holds does not count for this one).
all_pods_serve() {
  [[ -f "$PODS_DIR/pods.tsv" ]] || return 1
  local pod port rest body serving=0
  local -A owner=()
  while IFS=$'\t' read -r pod port rest; do
    [[ -z "${owner[$port]:-}" ]] || return 1
    owner[$port]="$pod"
    body="$(curl -fsS --max-time 2 "http://127.0.0.1:$port/healthz")" || return 1
    [[ "$body" == *"\"pod\":\"$pod\""* ]] || return 1
    serving=$((serving + 1))
  done < "$PODS_DIR/pods.tsv"
  ((serving >= $1))
}

# Prometheus (built by prereqs.sh): the operator (honor_labels: its policy gauges carry the
# policy's namespace), every deal-service pod from the targets.json local-pods keeps current, the
# Argo Rollouts controller, and the chart's alert rules.
start_prometheus() {
  local dir="$STATE_DIR/prometheus"
  mkdir -p "$dir/data"
  cat > "$dir/prometheus.yml" <<YAML
global:
  scrape_interval: 2s
  scrape_timeout: 2s
  evaluation_interval: 2s
rule_files:
  - $WARMGATE_ROOT/charts/warmgate/files/prometheus-rules.yaml
scrape_configs:
  - job_name: warmgate-operator
    honor_labels: true
    static_configs:
      - targets: ["127.0.0.1:$OPERATOR_HTTP_PORT"]
        labels: {namespace: warmgate-system}
  - job_name: warmgate-agents
    file_sd_configs:
      - files: ["$PODS_DIR/targets.json"]
        refresh_interval: 2s
  - job_name: argo-rollouts
    static_configs:
      - targets: ["127.0.0.1:$ARGO_METRICS_PORT"]
        labels: {namespace: argo-rollouts}
YAML
  start_bg prometheus "$PROMETHEUS_BIN/prometheus" --config.file="$dir/prometheus.yml" \
    --storage.tsdb.path="$dir/data" --storage.tsdb.retention.time=1d \
    --web.listen-address="127.0.0.1:$PROMETHEUS_PORT"
  wait_for "Prometheus on :$PROMETHEUS_PORT" 60 curl -fsS "http://127.0.0.1:$PROMETHEUS_PORT/-/ready"
}

summary() {
  printf '\n\033[1mwarmgate is up\033[0m (state in %s, logs in %s)\n\n' "$STATE_DIR" "$LOG_DIR"
  printf '  %-22s %s\n' "Redis (L2)" "127.0.0.1:$REDIS_PORT" \
    "Spanner emulator" "127.0.0.1:$SPANNER_PORT ($DEMO_DEALS deals)" \
    "kwok cluster" "$CLUSTER_NAME (export KUBECONFIG=$KUBECONFIG)" \
    "operator" "http://127.0.0.1:$OPERATOR_HTTP_PORT/metrics, webhook :$WEBHOOK_PORT" \
    "Prometheus" "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/ (HTTP API, no web UI; see docs/runbook.md)"
  while IFS=$'\t' read -r pod port pid hash; do
    printf '  %-22s %s\n' "pod $pod" "http://127.0.0.1:$port/deals/deal-000001 (pid $pid, template $hash)"
  done < "$PODS_DIR/pods.tsv"
  printf '\n'
  kubectl -n demo get cachepolicies,rollouts
  printf '\nWatch the gate in Prometheus: curl -s http://127.0.0.1:%s/api/v1/query --data-urlencode '"'"'query=max by (policy, phase) (warmgate_gate_phase) == 1'"'"'\n' "$PROMETHEUS_PORT"
  printf '\nNext: hack/demo.sh (schema change → hold, preload, release; then a same-schema change → skip). Stop: hack/down.sh\n'
}

main() {
  local start=$SECONDS
  [[ -e "$STATE_DIR/pids" && -n "$(ls -A "$STATE_DIR/pids" 2>/dev/null)" ]] \
    && die "warmgate already seems up ($STATE_DIR/pids is not empty): run hack/down.sh first"
  mkdir -p "$PID_DIR" "$LOG_DIR" "$PODS_DIR"
  timed "prerequisites" bash "$WARMGATE_ROOT/hack/prereqs.sh"
  timed "build" build
  timed "redis" start_redis
  timed "spanner" start_spanner
  timed "cluster" start_cluster
  timed "operator" start_operator
  timed "example app" start_app
  timed "prometheus" start_prometheus
  summary
  log "up in $((SECONDS - start))s"
}

main "$@"
