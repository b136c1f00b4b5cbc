#!/usr/bin/env bash
# Installs what warmgate's tests and local cluster need, when it is missing:
#   - redis-server (Debian package) as the Valkey-compatible L2, and redis-cli (redis-tools), which
#     creates and reshards the tests' Redis clusters;
#   - kube-apiserver, kube-controller-manager, kube-scheduler, etcd, kwok, kwokctl, helm,
#     kube-score (the chart's linter), the Argo Rollouts controller, the Flagger controller,
#     prometheus and promtool, built from their Go modules (hack/tools/*) into $WARMGATE_CACHE_DIR;
#   - the Argo Rollouts CRDs and Flagger's CRDs, taken from the same Go modules.
# Idempotent: a second run builds nothing. Settings: WARMGATE_CACHE_DIR (default ~/.cache/warmgate).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

install_apt_packages() {
  local missing=()
  command -v redis-server >/dev/null || missing+=(redis-server)
  command -v redis-cli >/dev/null || missing+=(redis-tools)
  [[ -x /usr/lib/google-cloud-sdk/bin/cloud_spanner_emulator/emulator_main ]] \
    || warn "Cloud Spanner emulator not found at /usr/lib/google-cloud-sdk/bin/cloud_spanner_emulator/emulator_main; origin tests will fail"
  if ((${#missing[@]})); then
    log "installing ${missing[*]} (apt)"
    local sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  # The package starts a system-wide instance we never use; tests start their own on free ports.
  if command -v systemctl >/dev/null && systemctl is-active --quiet redis-server 2>/dev/null; then
    systemctl stop redis-server >/dev/null 2>&1 || true
  fi
}

# Like helm's Makefile: without these, helm assumes Kubernetes v1.20 for template and lint.
helm_ldflags() {
  local minor
  minor="$(cut -d. -f2 <<<"$K8S_VERSION")"
  echo "-X helm.sh/helm/v3/internal/version.version=v$HELM_VERSION" \
    "-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$minor" \
    "-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$minor"
}

main() {
  command -v go >/dev/null || die "go not found: install Go 1.24+ (the hack/tools modules need it)"
  timed "apt packages" install_apt_packages
  timed "kubernetes v$K8S_VERSION" build_tools kubernetes "$K8S_BIN" "$(k8s_ldflags)" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler
  timed "etcd v$ETCD_VERSION" build_tools etcd "$ETCD_BIN" \
    "-X go.etcd.io/etcd/api/v3/version.GitSHA=v$ETCD_VERSION" etcd=go.etcd.io/etcd/server/v3
  timed "kwok v$KWOK_VERSION" build_tools kwok "$KWOK_BIN" \
    "-X sigs.k8s.io/kwok/pkg/consts.Version=$KWOK_VERSION -X sigs.k8s.io/kwok/pkg/consts.KubeVersion=$K8S_VERSION" \
    sigs.k8s.io/kwok/cmd/kwok sigs.k8s.io/kwok/cmd/kwokctl
  timed "argo-rollouts v$ARGO_ROLLOUTS_VERSION" build_tools argo-rollouts "$ARGO_BIN" \
    "-X github.com/argoproj/argo-rollouts/utils/version.version=$ARGO_ROLLOUTS_VERSION" \
    github.com/argoproj/argo-rollouts/cmd/rollouts-controller
  timed "flagger v$FLAGGER_VERSION" build_tools flagger "$FLAGGER_BIN" "" \
    github.com/fluxcd/flagger/cmd/flagger
  timed "helm v$HELM_VERSION" build_tools helm "$HELM_BIN" \
    "$(helm_ldflags)" helm.sh/helm/v3/cmd/helm
  timed "kube-score v$KUBE_SCORE_VERSION" build_tools kube-score "$KUBE_SCORE_BIN" \
    "-X main.version=$KUBE_SCORE_VERSION" github.com/zegl/kube-score/cmd/kube-score
  # Without the cloud service discoveries (file and HTTP discovery stay): a far smaller build.
  # No web UI assets either (they are built with npm, outside the module): the HTTP API serves.
  BUILD_TAGS=remove_all_sd timed "prometheus v$PROMETHEUS_VERSION" build_tools prometheus \
    "$PROMETHEUS_BIN" "-X github.com/prometheus/common/version.Version=$PROMETHEUS_VERSION" \
    github.com/prometheus/prometheus/cmd/promtool github.com/prometheus/prometheus/cmd/prometheus

  # Argo Rollouts CRDs straight from the module that built the controller.
  local src
  src="$(cd "$WARMGATE_ROOT/hack/tools/argo-rollouts" && go list -m -f '{{.Dir}}' github.com/argoproj/argo-rollouts)/manifests/crds"
  mkdir -p "$ARGO_CRDS_DIR"
  install -m 0644 "$src"/*-crd.yaml "$ARGO_CRDS_DIR/"
  src="$(cd "$WARMGATE_ROOT/hack/tools/flagger" && go list -m -f '{{.Dir}}' github.com/fluxcd/flagger)/artifacts/flagger"
  install -m 0644 "$src/crd.yaml" "$FLAGGER_BIN/crd.yaml"

  # kube-api-test offline layout (links, not copies).
  local kat="$KUBE_API_TEST_DIR/k8s/$K8S_VERSION-linux-amd64" kubectl_bin
  mkdir -p "$kat"
  ln -sf "$K8S_BIN/kube-apiserver" "$kat/kube-apiserver"
  ln -sf "$ETCD_BIN/etcd" "$kat/etcd"
  kubectl_bin="$(command -v kubectl || true)"
  if [[ -z "$kubectl_bin" ]]; then
    timed "kubectl v$K8S_VERSION" build_tools kubernetes "$K8S_BIN/kubectl-build" "$(k8s_ldflags)" \
      k8s.io/kubernetes/cmd/kubectl
    kubectl_bin="$K8S_BIN/kubectl-build/kubectl"
  fi
  ln -sf "$kubectl_bin" "$kat/kubectl"

  log "ready: binaries under $WARMGATE_CACHE_DIR/bin, kube-api-test dir $KUBE_API_TEST_DIR"
}

main "$@"
