#!/usr/bin/env bash
# Runs the stream gateway benchmark: a push-like burst of identical requests, without and with
# coalescing; prints upstream calls and subscriber p50/p99 and writes stream-gateway/target/bench/report.md.
# Settings: BENCH_QUICK=1 for a short run (CI); BENCH_OUT (default stream-gateway/target/bench).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cd "$WARMGATE_ROOT"
command -v redis-server >/dev/null || bash hack/prereqs.sh
log "building the stream gateway and its test classes"
mvn -B -q -ntp -pl stream-gateway -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile=target/bench-classpath.txt
args=(--out "${BENCH_OUT:-$WARMGATE_ROOT/stream-gateway/target/bench}")
[[ "${BENCH_QUICK:-0}" == 1 ]] && args+=(--quick)
log "running the gateway benchmark (${BENCH_QUICK:+quick, }about a minute)"
timed "gateway benchmark" java \
  -cp "stream-gateway/target/test-classes:stream-gateway/target/classes:$(cat stream-gateway/target/bench-classpath.txt)" \
  io.warmgate.gateway.bench.GatewayBench "${args[@]}"
