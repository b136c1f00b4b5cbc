#!/usr/bin/env bash
# The test command: installs missing prerequisites, then runs every tier
# (*Test unit tests, *IT integration tests on real Redis / Spanner emulator / kube-apiserver,
# *E2E on a local kwok cluster with the Argo Rollouts controller, and the rollout gate's scenarios
# tagged kind-tier (RolloutGateE2E, DeploymentGateE2E) on a Kind cluster with container pods:
# hack/kind-e2e.sh --offline, a Docker engine is started and every image built here).
# With WARMGATE_LANES=1, two lanes run at once: the Maven lane (every module but e2e: unit,
# integration and the test-support E2E tiers) and the cluster lane (in a copy of the working tree
# under .warmgate/cluster-lane: the Kind tier, then the e2e module's kwok tier).
# Settings: MVN_ARGS (extra Maven arguments; with -pl, one lane), WARMGATE_TEST_PROFILES (default
# "e2e"), WARMGATE_KIND (default 1; 0 skips the Kind tier and runs its suites on kwok;
# WARMGATE_KIND_TESTS and the other settings of hack/kind-e2e.sh apply), WARMGATE_LANES (default 0:
# the tiers one after the other in this tree; 1: the two lanes).
# At the end, pass or fail, one line per tier from the reports this run wrote, with its
# WARMGATE_SLOWEST_CLASSES (default 5) slowest classes (hack/test-summary.sh);
# each tier keeps its reports in a directory of its own under the modules' target/.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

run_start="$(mktemp)"
summarized=0
summary() {
  local status=$?
  ((summarized)) && return "$status"
  # An interrupted run leaves no lane behind (its own process group).
  if [[ -n "${lane_pid:-}" ]] && kill -0 "$lane_pid" 2>/dev/null; then
    warn "stopping the cluster lane"
    kill -- "-$lane_pid" 2>/dev/null || true
  fi
  print_tiers || true
  return "$status"
}
# One line per tier from the reports this run wrote, then a FAILED line per failed test; exits 1
# when a test failed.
print_tiers() {
  log "tiers of this run, from their test reports:"
  local status=0
  bash "$WARMGATE_ROOT/hack/test-summary.sh" --since "$run_start" \
    --classes "${WARMGATE_SLOWEST_CLASSES:-5}" || status=$?
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
kind_on=0
[[ "${WARMGATE_KIND:-1}" != 0 ]] && kind_on=1
# The suites the Kind tier runs (tag kind-tier: $KIND_TIER_TESTS) run there only, not on kwok too:
# the same scenarios with the real components. A WARMGATE_KIND_TESTS subset leaves the rest of it
# to kwok.
kind_only=0
((kind_on)) && [[ -z "${WARMGATE_KIND_TESTS:-}" && "$profiles" == *e2e* ]] && kind_only=1
# Two lanes at once with WARMGATE_LANES=1 (not with the e2e profile off): the cluster lane runs the
# e2e module's suites (the Kind tier, then the kwok tier), which mostly wait on clusters, TTLs and
# rollouts, while the Maven lane runs every other module's tiers, which mostly use the CPU.
# Off by default until a lanes run is green: on two cores the lanes keep the load at 12 to 34,
# under which tests that wait on real time have failed (docs/testing.md).
lanes="${WARMGATE_LANES:-0}"
[[ "$profiles" == *e2e* ]] || lanes=0
# A module chosen with -pl in MVN_ARGS is tested alone, in one lane.
[[ " ${MVN_ARGS:-} " =~ [[:space:]](-pl|--projects)[[:space:]] ]] && lanes=0
[[ "$lanes" == 0 || -d "$WARMGATE_ROOT/.git" ]] \
  || die "WARMGATE_LANES=1 copies the working tree with git ls-files, and $WARMGATE_ROOT is not a git checkout: run with WARMGATE_LANES=0"

maven_args() {
  # Every tier runs to its end whatever fails in it (a failed test stops no module or lane); the
  # run fails afterwards, from the reports (hack/test-summary.sh), naming each failed test.
  local args=(-B -ntp verify "-Dwarmgate.cache.dir=$WARMGATE_CACHE_DIR" -Dmaven.test.failure.ignore=true)
  [[ -n "$profiles" ]] && args+=("-P$profiles")
  ((kind_only)) && args+=(-DexcludedGroups=kind-tier)
  # shellcheck disable=SC2206
  args+=(${MVN_ARGS:-})
  printf '%s\n' "${args[@]}"
}

# The Kind tier: $KIND_TIER_TESTS, with the chart's operator, the webhook behind its Service and
# deal-service pods as containers; run from the directory $1.
kind_tier() {
  local root="$1" engine_was_up=0 status=0 start=$SECONDS
  docker info >/dev/null 2>&1 && engine_was_up=1
  bash "$root/hack/kind-e2e.sh" --offline || status=$?
  log "kind e2e: $((SECONDS - start))s"
  # Leave no engine behind that this run started.
  ((engine_was_up)) || bash "$root/hack/docker-engine.sh" --stop || true
  ((status == 0)) || { warn "the Kind tier failed (exit $status); its output is above. It needs a Docker engine that runs --privileged containers (hack/docker-engine.sh); WARMGATE_KIND=0 skips it"; return "$status"; }
}

# The cluster lane's tree: a copy of the working tree (tracked and untracked files, not ignored
# ones), so that its builds and the processes its suites start never share a target/ directory
# with the Maven lane. The e2e module's upstream modules are installed from it before the lanes
# start, in the foreground: on a new machine this one build downloads the Maven dependencies and
# the test plugins' providers, so the two lanes do not download the same files at once.
lane_tree="$WARMGATE_ROOT/.warmgate/cluster-lane"
prepare_cluster_lane() {
  rm -rf "$lane_tree" && mkdir -p "$lane_tree"
  (cd "$WARMGATE_ROOT" && git ls-files -z -co --exclude-standard \
    | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$lane_tree"
  # shellcheck disable=SC2086
  (cd "$lane_tree" && mvn -B -ntp -q install -pl e2e -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test=none -Dit.failIfNoSpecifiedTests=false ${MVN_ARGS:-})
}

# The cluster lane: the Kind tier, then the e2e module's kwok tier, each whatever the other did;
# its reports are copied back to e2e/target/ for the summary.
cluster_lane() {
  local status=0 args
  cd "$lane_tree"
  mapfile -t args < <(maven_args)
  if ((kind_on)); then
    WARMGATE_KIND_INSTALLED=1 timed "cluster lane: Kind tier" kind_tier "$lane_tree" || status=$?
  fi
  timed "cluster lane: kwok tier" mvn "${args[@]}" -pl e2e || status=$?
  mkdir -p "$WARMGATE_ROOT/e2e/target"
  cp -r "$lane_tree"/e2e/target/failsafe-reports-* "$WARMGATE_ROOT/e2e/target/" 2>/dev/null || true
  return "$status"
}

cd "$WARMGATE_ROOT"
mapfile -t args < <(maven_args)
((kind_only)) && log "$KIND_TIER_TESTS run in the Kind tier, not on kwok (WARMGATE_KIND=0 runs them on kwok)"
maven_status=0 lane_status=0
if [[ "$lanes" != 0 ]]; then
  lane_log="$WARMGATE_ROOT/.warmgate/cluster-lane.log"
  mkdir -p "$(dirname "$lane_log")"
  log "cluster lane (the e2e module's Kind and kwok tiers) runs beside the Maven lane; its output: $lane_log, printed when it ends"
  timed "cluster lane: its tree and build" prepare_cluster_lane \
    || die "the e2e module and the modules it needs do not build (output above)"
  lane_start=$SECONDS
  set -m # the lane in a process group of its own, so that an interrupted run can stop it whole
  (cluster_lane) > "$lane_log" 2>&1 &
  lane_pid=$!
  set +m
  log "mvn ${args[*]} -pl !e2e"
  timed "maven lane" mvn "${args[@]}" -pl '!e2e' || maven_status=$?
  wait "$lane_pid" || lane_status=$?
  log "cluster lane: $((SECONDS - lane_start))s; its output follows"
  cat "$lane_log"
else
  log "mvn ${args[*]}"
  timed "maven verify" mvn "${args[@]}" || maven_status=$?
  if ((kind_on)); then
    timed "kind tier" kind_tier "$WARMGATE_ROOT" || lane_status=$?
  fi
fi
# The case counts docs/bad-input.md gives are those of the reports just written.
counts=0
python3 "$WARMGATE_ROOT/hack/check-doc-counts.py" || counts=$?
summarized=1 tests_status=0
print_tiers || tests_status=$?
((tests_status == 0)) || die "tests failed: the tests named above"
((maven_status == 0)) || die "the Maven tiers failed (exit $maven_status); their output is above"
((lane_status == 0)) || die "the cluster lane failed (exit $lane_status); its output is above"
((counts != 1)) || die "docs/bad-input.md gives case counts that the test reports do not (listed above): write the counts the reports have"
((counts != 2)) || warn "docs/bad-input.md names test classes this run did not report (a subset through MVN_ARGS?): their counts were not checked"
((kind_on)) || warn "WARMGATE_KIND=0: the Kind tier is skipped"
