#!/usr/bin/env bash
# Runs warmgate's benchmarks and writes benchmarks/target/bench/report.md (+ JSON per part):
# JMH data path, fleet cold start, expiry stampede, preload, rollout gate and operator footprint,
# each beside its baseline from the same run. About 15 minutes on 2 cores.
# Settings: BENCH_QUICK=1 for a short smoke run (CI); BENCH_OUT (default benchmarks/target/bench).
# Arguments go to the runner: --only jmh,fleet,operator, and the fleet's --agents K --deals N
# --skew S --requests R --seed X (e.g. hack/bench.sh --only fleet --agents 16).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cd "$WARMGATE_ROOT"
bash hack/prereqs.sh
log "building the benchmarks"
mvn -B -q -ntp -pl benchmarks -am package -DskipTests -Dcheckstyle.skip
args=(--out "${BENCH_OUT:-$WARMGATE_ROOT/benchmarks/target/bench}")
[[ "${BENCH_QUICK:-0}" == 1 ]] && args+=(--quick)
log "running the benchmarks (${BENCH_QUICK:+quick, }this takes a while; the report is printed at the end)"
timed "benchmarks" java -Dwarmgate.repo.dir="$WARMGATE_ROOT" \
  -Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener \
  -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
  io.warmgate.bench.BenchMain "${args[@]}" "$@"
