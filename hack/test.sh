#!/usr/bin/env bash
# The test command: installs missing prerequisites, then runs every tier
# (*Test unit tests, *IT integration tests on real Redis / Spanner emulator / kube-apiserver,
# *E2E on a local kwok cluster with the Argo Rollouts controller).
# Settings: MVN_ARGS (extra Maven arguments), WARMGATE_TEST_PROFILES (default "e2e").
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

timed "prerequisites" bash "$WARMGATE_ROOT/hack/prereqs.sh"

profiles="${WARMGATE_TEST_PROFILES-e2e}"
args=(-B -ntp verify "-Dwarmgate.cache.dir=$WARMGATE_CACHE_DIR")
[[ -n "$profiles" ]] && args+=("-P$profiles")
# shellcheck disable=SC2206
args+=(${MVN_ARGS:-})

cd "$WARMGATE_ROOT"
log "mvn ${args[*]}"
timed "maven verify" mvn "${args[@]}"
