#!/usr/bin/env bash
# Runs the end-to-end suites tagged kind-tier (RolloutGateE2E, DeploymentGateE2E) on a Kind cluster,
# where pods are real containers.
# Needs a Docker engine (the kwok tier does not); hack/test.sh runs it with --offline after the
# Maven tiers, or in its cluster lane (WARMGATE_LANES=1).
#   - kind is built from its Go module (hack/tools/kind) into $WARMGATE_CACHE_DIR, like the other tools;
#   - the operator and deal-service images are built by hack/image.sh --docker and loaded into Kind;
#   - Argo Rollouts is installed from manifests/install.yaml of the module hack/tools/argo-rollouts pins;
#   - Valkey and the Cloud Spanner emulator run as Deployments in namespace warmgate-e2e. The emulator
#     image is built here from the locally installed emulator_main on a slim base image: pods reach it
#     through a Service like any database, and the outage scenarios can kill it (scale to zero) or
#     freeze it (SIGSTOP through kubectl exec; the pod shares its process namespace for that);
#   - the warmgate chart is installed with the operator image built here;
# then the suite runs with WARMGATE_E2E_KUBECONFIG and WARMGATE_E2E_IN_CLUSTER=1: it seeds the deals
# itself and reaches Valkey, Spanner and the pods through port-forwards.
# Settings: KIND_CLUSTER_NAME (warmgate-e2e), KIND_NODE_IMAGE (kind's default node image),
# WARMGATE_KIND_KEEP=1 (keep the cluster afterwards; an existing cluster of that name is always reused),
# WARMGATE_VALKEY_IMAGE (valkey/valkey:8.1), WARMGATE_EMULATOR_BASE_IMAGE (debian:bookworm-slim),
# WARMGATE_JIB_BASE_IMAGE (the Java base image of ours; default: the pom's), WARMGATE_ARGO_ROLLOUTS_IMAGE
# (the controller image; default: the one install.yaml names), WARMGATE_KIND_TESTS (the failsafe it.test
# filter; default $KIND_TIER_TESTS, every scenario), WARMGATE_KIND_INSTALLED=1 (build the e2e module
# alone: the modules it needs are installed), MVN_ARGS. Its reports go to e2e/target/failsafe-reports-kind.
# --offline (no registry reachable; hack/test.sh runs this): starts a Docker engine where none answers
# (hack/docker-engine.sh), builds the node image and the Valkey, Java and Argo Rollouts images
# (hack/kind-images.sh) and uses them for every setting above not set already.
# An image of these settings found in the Docker engine is loaded into Kind: the node need not pull it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Runs the two offline steps, then exports each setting of images.env that is not set yet.
offline() {
  bash "$WARMGATE_ROOT/hack/docker-engine.sh"
  bash "$WARMGATE_ROOT/hack/kind-images.sh"
  local key value
  while IFS='=' read -r key value; do
    [[ -n "${!key:-}" ]] || export "$key=$value"
  done < "$WARMGATE_CACHE_DIR/kind-images/images.env"
}

case "${1:-}" in
  "") ;;
  --offline) offline ;;
  *) die "usage: hack/kind-e2e.sh [--offline]" ;;
esac

CLUSTER="${KIND_CLUSTER_NAME:-warmgate-e2e}"
NODE_IMAGE="${KIND_NODE_IMAGE:-}"
KEEP="${WARMGATE_KIND_KEEP:-0}"
VALKEY_IMAGE="${WARMGATE_VALKEY_IMAGE:-valkey/valkey:8.1}"
EMULATOR_BASE_IMAGE="${WARMGATE_EMULATOR_BASE_IMAGE:-debian:bookworm-slim}"
ARGO_IMAGE="${WARMGATE_ARGO_ROLLOUTS_IMAGE:-}"
EMULATOR_BIN=/usr/lib/google-cloud-sdk/bin/cloud_spanner_emulator/emulator_main
TAG=dev
OPERATOR_IMAGE="warmgate/warmgate-operator:$TAG"
APP_IMAGE="warmgate/deal-service:$TAG"
EMULATOR_IMAGE="warmgate/spanner-emulator:$TAG"
WORK_DIR="$WARMGATE_ROOT/.warmgate/kind-$CLUSTER"
# The suite's failsafe reports, under e2e/target/: this tier's own (hack/test-summary.sh reads it).
KIND_REPORTS=failsafe-reports-kind
export KUBECONFIG="$WORK_DIR/kubeconfig"
KIND="$KIND_BIN/kind"
created=0

check_tools() {
  command -v docker >/dev/null || die "docker not found: this script needs a Docker engine and its CLI"
  docker info >/dev/null 2>&1 || die "no Docker engine answers 'docker info': start one (or use hack/test.sh, which needs none)"
  command -v kubectl >/dev/null || die "kubectl not found: install it"
  command -v go >/dev/null || die "go not found: install Go 1.24+ (kind is built from hack/tools/kind)"
  [[ -x "$EMULATOR_BIN" ]] || die "Cloud Spanner emulator not found at $EMULATOR_BIN: install google-cloud-cli-spanner-emulator"
  HELM="$(command -v helm || true)"
  [[ -n "$HELM" ]] || HELM="$HELM_BIN/helm"
  [[ -x "$HELM" ]] || die "helm not found on PATH nor at $HELM: install it or run hack/prereqs.sh"
  build_tools kind "$KIND_BIN" "" sigs.k8s.io/kind
}

create_cluster() {
  mkdir -p "$WORK_DIR"
  if grep -qx "$CLUSTER" <<<"$("$KIND" get clusters 2>/dev/null)"; then
    log "reusing Kind cluster '$CLUSTER'"
  else
    log "creating Kind cluster '$CLUSTER'${NODE_IMAGE:+ (node image $NODE_IMAGE)}"
    created=1
    "$KIND" create cluster --name "$CLUSTER" ${NODE_IMAGE:+--image "$NODE_IMAGE"} --wait 180s
  fi
  "$KIND" get kubeconfig --name "$CLUSTER" > "$KUBECONFIG"
}

# On exit: what the cluster showed when something failed, then the cluster goes unless kept or reused.
finish() {
  local status=$?
  if ((status != 0)) && [[ -s "$KUBECONFIG" ]]; then
    warn "failed (exit $status); cluster state:"
    kubectl get pods -A -o wide >&2 || true
    kubectl -n warmgate-system logs deploy/warmgate-operator --tail=200 >&2 || true
  fi
  if ((created)) && [[ "$KEEP" != 1 ]]; then
    "$KIND" delete cluster --name "$CLUSTER" >/dev/null 2>&1 || warn "kind delete cluster --name $CLUSTER failed"
    log "deleted Kind cluster '$CLUSTER'"
  elif [[ -s "$KUBECONFIG" ]]; then
    log "Kind cluster '$CLUSTER' kept: export KUBECONFIG=$KUBECONFIG; $KIND delete cluster --name $CLUSTER"
  fi
}

build_images() {
  log "building $OPERATOR_IMAGE and $APP_IMAGE (Jib, to the Docker daemon)"
  "$WARMGATE_ROOT/hack/image.sh" --docker --only operator,deal-service --tag "$TAG" \
    ${WARMGATE_JIB_BASE_IMAGE:+--base "$WARMGATE_JIB_BASE_IMAGE"} >/dev/null
  # No published emulator image is used: ship the binary installed here.
  local dir="$WORK_DIR/emulator-image"
  mkdir -p "$dir"
  cp "$EMULATOR_BIN" "$dir/emulator_main"
  cat > "$dir/Dockerfile" <<EOF
FROM $EMULATOR_BASE_IMAGE
COPY emulator_main /usr/local/bin/emulator_main
USER 65532
EXPOSE 9010
ENTRYPOINT ["/usr/local/bin/emulator_main", "--host_port", "0.0.0.0:9010"]
EOF
  log "building $EMULATOR_IMAGE from $EMULATOR_BIN on $EMULATOR_BASE_IMAGE"
  docker build -q -t "$EMULATOR_IMAGE" "$dir" >/dev/null
  "$KIND" load docker-image --name "$CLUSTER" "$OPERATOR_IMAGE" "$APP_IMAGE" "$EMULATOR_IMAGE"
  local image
  for image in "$VALKEY_IMAGE" $ARGO_IMAGE; do
    if docker image inspect "$image" >/dev/null 2>&1; then
      "$KIND" load docker-image --name "$CLUSTER" "$image"
    fi
  done
}

install_argo_rollouts() {
  local module="$WARMGATE_ROOT/hack/tools/argo-rollouts" dir
  dir="$(cd "$module" && go mod download github.com/argoproj/argo-rollouts \
    && go list -m -f '{{.Dir}}' github.com/argoproj/argo-rollouts)"
  log "installing Argo Rollouts v$ARGO_ROLLOUTS_VERSION ($dir/manifests/install.yaml)"
  kubectl create namespace argo-rollouts --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  # Server-side: the CRDs are too large for the last-applied annotation.
  kubectl apply --server-side --force-conflicts -n argo-rollouts -f "$dir/manifests/install.yaml" >/dev/null
  if [[ -n "$ARGO_IMAGE" ]]; then
    kubectl -n argo-rollouts patch deployment argo-rollouts --type=json -p "[
      {\"op\": \"replace\", \"path\": \"/spec/template/spec/containers/0/image\", \"value\": \"$ARGO_IMAGE\"},
      {\"op\": \"replace\", \"path\": \"/spec/template/spec/containers/0/imagePullPolicy\", \"value\": \"IfNotPresent\"}]" >/dev/null
  fi
  kubectl -n argo-rollouts rollout status deployment/argo-rollouts --timeout=300s
}

# The names match InClusterStack (e2e): namespace warmgate-e2e, Services valkey:6379 and
# spanner-emulator:9010.
install_services() {
  log "installing Valkey ($VALKEY_IMAGE) and the Spanner emulator in namespace warmgate-e2e"
  kubectl create namespace warmgate-e2e --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  kubectl apply -n warmgate-e2e -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: valkey}
spec:
  selector: {matchLabels: {app: valkey}}
  template:
    metadata: {labels: {app: valkey}}
    spec:
      containers:
        - name: valkey
          image: $VALKEY_IMAGE
          args: ["valkey-server", "--save", "", "--appendonly", "no"]
          ports: [{containerPort: 6379}]
          readinessProbe: {tcpSocket: {port: 6379}, periodSeconds: 2}
---
apiVersion: v1
kind: Service
metadata: {name: valkey}
spec:
  selector: {app: valkey}
  ports: [{port: 6379, targetPort: 6379}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: spanner-emulator}
spec:
  selector: {matchLabels: {app: spanner-emulator}}
  template:
    metadata: {labels: {app: spanner-emulator}}
    spec:
      # The emulator is then not PID 1 of its namespace, so the suite can freeze it with SIGSTOP
      # (kubectl exec) and keep its in-memory rows: PID 1 ignores signals sent from inside.
      shareProcessNamespace: true
      containers:
        - name: emulator
          image: $EMULATOR_IMAGE
          imagePullPolicy: Never
          ports: [{containerPort: 9010}]
          readinessProbe: {tcpSocket: {port: 9010}, periodSeconds: 2}
---
apiVersion: v1
kind: Service
metadata: {name: spanner-emulator}
spec:
  selector: {app: spanner-emulator}
  ports: [{port: 9010, targetPort: 9010}]
YAML
  kubectl -n warmgate-e2e rollout status deployment/valkey --timeout=300s
  kubectl -n warmgate-e2e rollout status deployment/spanner-emulator --timeout=300s
}

install_chart() {
  log "installing the warmgate chart ($OPERATOR_IMAGE)"
  # helm installs a chart's CRDs only once and never upgrades them: a reused cluster gets them here.
  kubectl apply --server-side -f "$WARMGATE_ROOT/crds/" >/dev/null
  "$HELM" upgrade --install warmgate "$WARMGATE_ROOT/charts/warmgate" -n warmgate-system --create-namespace \
    --set image.tag="$TAG" --set image.pullPolicy=Never --set logging.format=text --wait --timeout 5m
}

run_suite() {
  # The e2e module and the modules it needs, unless they are installed in the local Maven
  # repository already (WARMGATE_KIND_INSTALLED=1: hack/test.sh's cluster lane installs them).
  local args=(-B -ntp -Pe2e verify -pl e2e)
  [[ "${WARMGATE_KIND_INSTALLED:-0}" == 1 ]] || args+=(-am)
  args+=(
    # Only the end-to-end suite: the other tiers need the local processes of hack/prereqs.sh.
    -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
    "-Dit.test=${WARMGATE_KIND_TESTS:-$KIND_TIER_TESTS}" -Dit.failIfNoSpecifiedTests=false
    # Reports of its own, so the kwok tier's (failsafe-reports-e2e) survive this run.
    "-Dwarmgate.e2e.reports=$KIND_REPORTS")
  # shellcheck disable=SC2206
  args+=(${MVN_ARGS:-})
  log "mvn ${args[*]} (WARMGATE_E2E_IN_CLUSTER=1, WARMGATE_E2E_KUBECONFIG=$KUBECONFIG)"
  rm -rf "$WARMGATE_ROOT/e2e/target/$KIND_REPORTS"
  (cd "$WARMGATE_ROOT" && WARMGATE_E2E_KUBECONFIG="$KUBECONFIG" WARMGATE_E2E_IN_CLUSTER=1 \
    WARMGATE_E2E_APP_IMAGE="$APP_IMAGE" mvn "${args[@]}")
  # A filter that matches no test would pass with nothing run.
  local summary="$WARMGATE_ROOT/e2e/target/$KIND_REPORTS/failsafe-summary.xml" completed
  completed="$(sed -n 's:.*<completed>\([0-9]*\)</completed>.*:\1:p' "$summary" 2>/dev/null || true)"
  ((${completed:-0} > 0)) || die "no end-to-end test ran (WARMGATE_KIND_TESTS=${WARMGATE_KIND_TESTS:-$KIND_TIER_TESTS}): name a class or Class#method of e2e"
  log "$completed end-to-end tests passed on Kind"
}

main() {
  local start=$SECONDS
  timed "tools" check_tools
  trap finish EXIT
  timed "cluster" create_cluster
  timed "images" build_images
  timed "argo rollouts" install_argo_rollouts
  timed "valkey + spanner" install_services
  timed "chart" install_chart
  timed "e2e suite" run_suite
  log "kind e2e passed in $((SECONDS - start))s"
}

main "$@"
