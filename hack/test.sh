#!/usr/bin/env bash
# The test command: installs missing prerequisites, then runs every tier
# (*Test unit tests, *IT integration tests on real Redis / Spanner emulator / kube-apiserver,
# *E2E on a local kwok cluster with the Argo Rollouts controller), then the rollout gate's scenarios
# tagged kind-tier (RolloutGateE2E, DeploymentGateE2E) on a Kind cluster with container pods (hack/kind-e2e.sh --offline: a Docker engine
# is started and every image built here).
# Settings: MVN_ARGS (extra Maven arguments), WARMGATE_TEST_PROFILES (default "e2e"),
# WARMGATE_KIND (default 1; 0 skips the Kind tier and runs its suites on kwok;
# WARMGATE_KIND_TESTS and the other settings of hack/kind-e2e.sh apply).
# At the end, pass or fail, one line per tier from the reports this run wrote, with its
# WARMGATE_SLOWEST_CLASSES (default 5) slowest classes (hack/test-summary.sh);
# each tier keeps its reports in a directory of its own under the modules' target/.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

run_start="$(mktemp)"
summary() {
  local status=$?
  log "tiers of this run, from their test reports:"
  bash "$WARMGATE_ROOT/hack/test-summary.sh" --since "$run_start" --classes "${WARMGATE_SLOWEST_CLASSES:-5}" || true
  rm -f "$run_start"
  return "$status"
}
trap summary EXIT

# Every relative link of the Markdown files points at a file and heading that exist.
python3 "$WARMGATE_ROOT/hack/check-links.py" || die "broken links in the docs (listed above): fix each link or the heading it names"
# The runbook's metric tables name exactly the meters the code registers.
python3 "$WARMGATE_ROOT/hack/check-metric-docs.py" || die "docs/runbook.md and the code's meters differ (listed above): add or remove the rows it names"

timed "prerequisites" bash "$WARMGATE_ROOT/hack/prereqs.sh"

profiles="${WARMGATE_TEST_PROFILES-e2e}"
args=(-B -ntp verify "-Dwarmgate.cache.dir=$WARMGATE_CACHE_DIR")
[[ -n "$profiles" ]] && args+=("-P$profiles")
# The suites the Kind tier runs (tag kind-tier: $KIND_TIER_TESTS) run there only, not on kwok too:
# the same scenarios with the real components, which keeps the test command within CI's time. A
# WARMGATE_KIND_TESTS subset leaves the rest of it to kwok.
if [[ "${WARMGATE_KIND:-1}" != 0 && -z "${WARMGATE_KIND_TESTS:-}" && "$profiles" == *e2e* ]]; then
  args+=(-DexcludedGroups=kind-tier)
  log "$KIND_TIER_TESTS run in the Kind tier below, not on kwok (WARMGATE_KIND=0 runs them on kwok)"
fi
# shellcheck disable=SC2206
args+=(${MVN_ARGS:-})

cd "$WARMGATE_ROOT"
log "mvn ${args[*]}"
timed "maven verify" mvn "${args[@]}"
# The case counts docs/bad-input.md gives are those of the reports just written.
counts=0
python3 "$WARMGATE_ROOT/hack/check-doc-counts.py" || counts=$?
((counts != 1)) || die "docs/bad-input.md gives case counts that the test reports do not (listed above): write the counts the reports have"
((counts != 2)) || warn "docs/bad-input.md names test classes this run did not report (a subset through MVN_ARGS?): their counts were not checked"

# The Kind tier: $KIND_TIER_TESTS, with the chart's operator, the webhook behind its Service and
# deal-service pods as containers.
if [[ "${WARMGATE_KIND:-1}" == 0 ]]; then
  warn "WARMGATE_KIND=0: the Kind tier is skipped"
  exit 0
fi
engine_was_up=0
docker info >/dev/null 2>&1 && engine_was_up=1
kind_status=0 kind_start=$SECONDS
bash "$WARMGATE_ROOT/hack/kind-e2e.sh" --offline || kind_status=$?
log "kind e2e: $((SECONDS - kind_start))s"
# Leave no engine behind that this run started.
((engine_was_up)) || bash "$WARMGATE_ROOT/hack/docker-engine.sh" --stop || true
((kind_status == 0)) || die "the Kind tier failed (exit $kind_status); its output is above. It needs a Docker engine that runs --privileged containers (hack/docker-engine.sh); WARMGATE_KIND=0 skips it"
