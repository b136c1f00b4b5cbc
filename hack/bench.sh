#!/usr/bin/env bash
# Runs the data-path benchmarks (JMH) and writes benchmarks/target/bench/report.md + JSON.
# Settings: BENCH_QUICK=1 for a short smoke run (CI); BENCH_OUT (default benchmarks/target/bench).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cd "$WARMGATE_ROOT"
command -v redis-server >/dev/null || bash hack/prereqs.sh
log "building the benchmarks"
mvn -B -q -ntp -pl benchmarks -am package -DskipTests -Dcheckstyle.skip
args=(--out "${BENCH_OUT:-$WARMGATE_ROOT/benchmarks/target/bench}")
[[ "${BENCH_QUICK:-0}" == 1 ]] && args+=(--quick)
log "running the benchmarks (${BENCH_QUICK:+quick, }this takes a few minutes)"
timed "benchmarks" java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
  io.warmgate.bench.BenchMain "${args[@]}"
