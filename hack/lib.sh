#!/usr/bin/env bash
# Shared settings for hack/ scripts. Source it; do not run it.
set -euo pipefail

WARMGATE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WARMGATE_CACHE_DIR="${WARMGATE_CACHE_DIR:-$HOME/.cache/warmgate}"

# Pinned versions. The Go modules under hack/tools/ must agree with these.
K8S_VERSION="${K8S_VERSION:-1.34.4}"
ETCD_VERSION="${ETCD_VERSION:-3.6.16}"
KWOK_VERSION="${KWOK_VERSION:-0.7.0}"
ARGO_ROLLOUTS_VERSION="${ARGO_ROLLOUTS_VERSION:-1.9.2}"
FLAGGER_VERSION="${FLAGGER_VERSION:-1.36.1}"
HELM_VERSION="${HELM_VERSION:-3.19.5}"
KIND_VERSION="${KIND_VERSION:-0.33.0}"
KUBE_SCORE_VERSION="${KUBE_SCORE_VERSION:-1.20.0}"
# Prometheus 3.x is the Go module github.com/prometheus/prometheus v0.3MM.P (3.16.0 = v0.316.0).
PROMETHEUS_VERSION="${PROMETHEUS_VERSION:-3.16.0}"

K8S_BIN="$WARMGATE_CACHE_DIR/bin/kubernetes-v$K8S_VERSION"
ETCD_BIN="$WARMGATE_CACHE_DIR/bin/etcd-v$ETCD_VERSION"
KWOK_BIN="$WARMGATE_CACHE_DIR/bin/kwok-v$KWOK_VERSION"
ARGO_BIN="$WARMGATE_CACHE_DIR/bin/argo-rollouts-v$ARGO_ROLLOUTS_VERSION"
FLAGGER_BIN="$WARMGATE_CACHE_DIR/bin/flagger-v$FLAGGER_VERSION"
HELM_BIN="$WARMGATE_CACHE_DIR/bin/helm-v$HELM_VERSION"
KIND_BIN="$WARMGATE_CACHE_DIR/bin/kind-v$KIND_VERSION"
KUBE_SCORE_BIN="$WARMGATE_CACHE_DIR/bin/kube-score-v$KUBE_SCORE_VERSION"
PROMETHEUS_BIN="$WARMGATE_CACHE_DIR/bin/prometheus-v$PROMETHEUS_VERSION"
# fabric8 kube-api-test's offline layout: <dir>/k8s/<version>-linux-amd64/{etcd,kube-apiserver,kubectl}
KUBE_API_TEST_DIR="$WARMGATE_CACHE_DIR/kube-api-test"
ARGO_CRDS_DIR="$ARGO_BIN/crds"

export WARMGATE_CACHE_DIR
# Build the hack/tools modules with the installed Go, as pinned; no VCS stamping.
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

log() { printf '\033[1;34m==>\033[0m %s\n' "$*" >&2; }
warn() { printf '\033[1;33m!!\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31mxx\033[0m %s\n' "$*" >&2; exit 1; }

# timed LABEL CMD...: runs CMD and prints how long it took.
timed() {
  local label="$1"; shift
  local start=$SECONDS
  "$@"
  log "$label: $((SECONDS - start))s"
}

# build_tools TOOL OUT_DIR LDFLAGS [NAME=]PACKAGE...: builds each package's binary (named NAME, or
# the package's last path element) from hack/tools/TOOL, unless the stamp (the module's go.mod and
# go.sum plus the flags) says the same build is already there. BUILD_TAGS, when set, are passed to
# go build as -tags.
build_tools() {
  local tool="$1" out="$2" ldflags="$3"; shift 3
  local module="$WARMGATE_ROOT/hack/tools/$tool" stamp="$out/.stamp" want spec name pkg missing=()
  local tags="${BUILD_TAGS:-}"
  want="$(cat "$module/go.mod" "$module/go.sum" | sha256sum | cut -c1-16) $ldflags"
  [[ -z "$tags" ]] || want+=" tags=$tags"
  [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] || rm -f "$stamp"
  for spec in "$@"; do
    name="${spec%%=*}"; pkg="${spec#*=}"; [[ "$spec" == *=* ]] || name="${pkg##*/}"
    [[ -f "$stamp" && -x "$out/$name" ]] || missing+=("$name=$pkg")
  done
  if ((${#missing[@]} == 0)); then log "$tool: up to date in $out"; return; fi
  mkdir -p "$out"
  for spec in "${missing[@]}"; do
    name="${spec%%=*}"; pkg="${spec#*=}"
    log "$tool: building $name from $pkg (the first build takes minutes)"
    (cd "$module" && go build -trimpath ${tags:+-tags "$tags"} -ldflags "-s -w $ldflags" \
      -o "$out/$name" "$pkg")
  done
  echo "$want" > "$stamp"
}

# The version stamps of an official Kubernetes build (kubeadm and kubelet check them).
k8s_ldflags() {
  local v="v$K8S_VERSION" major minor
  major="${K8S_VERSION%%.*}"; minor="$(cut -d. -f2 <<<"$K8S_VERSION")"
  local f
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    f+=" -X $pkg.gitVersion=$v -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  echo "$f"
}

# The end-to-end suites tagged kind-tier: the Kind tier runs them (hack/kind-e2e.sh), the kwok tier
# leaves them out unless that tier is skipped (hack/test.sh).
KIND_TIER_TESTS="RolloutGateE2E,DeploymentGateE2E"
