#!/usr/bin/env bash
# Runs warmgate's benchmarks and writes benchmarks/target/bench/report.md (+ JSON per part):
# JMH data path, fleet cold start, expiry stampede, preload, release, rollout gate and operator footprint,
# each beside its baseline from the same run. More than half an hour on 2 cores (the release part
# replays five releases of 8 pods against the Spanner emulator; --release-rate and --release-deals
# scale it down).
# Settings: BENCH_QUICK=1 for a short smoke run (CI); BENCH_OUT (default benchmarks/target/bench);
# BENCH_GATE_E2E=0 skips the gate timings on the whole stack (GateTimingE2E, run first by a full run).
# Arguments go to the runner: --only jmh,fleet,release,operator, the fleet's --agents K --deals N
# --skew S --requests R --seed X (e.g. hack/bench.sh --only fleet --agents 16) and the release's
# --release-<name> value (agents, deals, skew, rate, hot-set-size, preload-rate, time-factor, ...).
# A full run with no arguments also rewrites the tables of docs/performance.md, docs/benchmark-report.md
# and docs/release-origin-reads.svg. The cluster part (the L2 benchmarks on a Redis cluster, about
# ten minutes) runs only when named: `hack/bench.sh --only cluster` rewrites its cluster table
# and docs/benchmark-cluster.md. So does the scale part (the release with 16 agents at 20,000
# lookups/s against the capacity-modelled origin, a stand-in; about an hour for its three
# repetitions, --scale-<name> value as --release-<name>): `hack/bench.sh --only scale` rewrites its
# scale table, docs/benchmark-scale.md and its two charts. So does the freshness part (staleness after a write with change
# streams, --freshness-<name> value): `hack/bench.sh --only freshness` rewrites its freshness
# table and docs/benchmark-freshness.md. The simulator part (the same release at internet scale in
# the deterministic fleet simulator, against a capacity-modelled Spanner stand-in; a few minutes,
# seconds with BENCH_QUICK=1) runs after a full run or alone: `hack/bench.sh --only simulator
# [--<setting> value]` writes simulator-report.md and simulator-origin-reads.svg, stamped with the
# commit, and, unless quick, copies both into docs/. The fleet-footprint part (the operator under
# the chart's settings with 5,000 CachePolicies, 20,000 unrelated Deployments and 5,000 Secrets,
# then restarted; about 12 minutes, 2 with BENCH_QUICK=1): `hack/bench.sh --only fleet-footprint
# [--native-memory]` writes fleet-footprint.md and, unless quick, copies it to
# docs/benchmark-fleet-footprint.md.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cd "$WARMGATE_ROOT"
out="${BENCH_OUT:-$WARMGATE_ROOT/benchmarks/target/bench}"
# The reports say which code they measured ("-dirty": with changes not committed).
commit="${WARMGATE_COMMIT:-$(git -C "$WARMGATE_ROOT" describe --always --dirty 2>/dev/null || echo "unknown (not a git checkout)")}"

# The fleet simulator: pure computation, no prerequisites beyond the JDK and Maven.
run_simulator() {
  log "building the fleet simulator"
  mvn -B -q -ntp -pl simulator -am package -DskipTests -Dcheckstyle.skip
  mkdir -p "$out"
  local sim_args=(--out "$out" --commit "$(git rev-parse HEAD 2>/dev/null || echo unknown)")
  if [[ "${BENCH_QUICK:-0}" == 1 ]]; then
    sim_args+=(--quick)
  fi
  log "simulating the release at internet scale (${BENCH_QUICK:+quick, }the report is printed at the end)"
  timed "simulator" java -Xmx6g -cp "simulator/target/classes:$(cat simulator/target/classpath.txt)" \
    io.warmgate.sim.SimMain "${sim_args[@]}" "$@"
  if [[ "${BENCH_QUICK:-0}" != 1 ]]; then
    log "copying the simulator's report and chart into docs/"
    cp "$out/simulator-report.md" "$WARMGATE_ROOT/docs/simulator-report.md"
    cp "$out/simulator-origin-reads.svg" "$WARMGATE_ROOT/docs/simulator-origin-reads.svg"
  fi
}

if [[ "${1:-}" == "--only" && "${2:-}" == "simulator" ]]; then
  shift 2
  run_simulator "$@"
  exit 0
fi

# The operator at fleet scale: its own JVM under the chart's settings, a real kube-apiserver.
run_fleet_footprint() {
  bash hack/prereqs.sh
  log "building the benchmarks"
  mvn -B -q -ntp -pl benchmarks -am install -DskipTests -Dcheckstyle.skip
  mkdir -p "$out"
  local fleet_args=(--out "$out")
  if [[ "${BENCH_QUICK:-0}" == 1 ]]; then
    fleet_args+=(--quick)
  fi
  timed "fleet footprint" java "-Dwarmgate.commit=$commit" "-Dwarmgate.repo.dir=$WARMGATE_ROOT" \
    "-Dwarmgate.cache.dir=$WARMGATE_CACHE_DIR" \
    -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
    io.warmgate.bench.operator.FleetFootprintBench "${fleet_args[@]}" "$@"
  if [[ "${BENCH_QUICK:-0}" != 1 ]]; then
    cp "$out/fleet-footprint.md" "$WARMGATE_ROOT/docs/benchmark-fleet-footprint.md"
  fi
}

if [[ "${1:-}" == "--only" && "${2:-}" == "fleet-footprint" ]]; then
  shift 2
  run_fleet_footprint "$@"
  exit 0
fi

bash hack/prereqs.sh
log "building the benchmarks"
mvn -B -q -ntp -pl benchmarks -am package -DskipTests -Dcheckstyle.skip
mkdir -p "$out"
args=(--out "$out")
if [[ "${BENCH_QUICK:-0}" == 1 ]]; then
  args+=(--quick)
elif [[ "${BENCH_GATE_E2E:-1}" == 1 && $# -eq 0 ]]; then
  # The gate's timings on the whole stack (kwok cluster, real Argo controller, real agents).
  log "timing the gate on the whole stack (GateTimingE2E, a few minutes)"
  rm -f "$out/gate-timings.json"
  timed "gate timings" mvn -B -q -ntp -Pe2e -pl e2e -am verify -Dtest=none \
    -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=GateTimingE2E \
    -Dfailsafe.failIfNoSpecifiedTests=false "-Dwarmgate.cache.dir=$WARMGATE_CACHE_DIR" \
    "-Dwarmgate.gate.timings=$out/gate-timings.json"
  args+=(--gate-timings "$out/gate-timings.json")
fi
log "running the benchmarks (${BENCH_QUICK:+quick, }this takes a while; the report is printed at the end)"
timed "benchmarks" java -Dwarmgate.repo.dir="$WARMGATE_ROOT" -Dwarmgate.commit="$commit" \
  -Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener \
  -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
  io.warmgate.bench.BenchMain "${args[@]}" "$@"

# Copies a run's summary table into docs/performance.md between <!-- bench:<marker>:begin/end -->.
copy_summary() {
  python3 - "$WARMGATE_ROOT/docs/performance.md" "$1" "$2" <<'PY'
import sys
readme, summary, marker = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
text = open(readme).read()
begin, end = f"<!-- bench:{marker}:begin -->\n", f"<!-- bench:{marker}:end -->"
i, j = text.index(begin) + len(begin), text.index(end)
open(readme, "w").write(text[:i] + summary + text[j:])
PY
}

# A full run of every part regenerates the tables of docs/performance.md, the report kept in docs/
# and the release chart: no figure there is typed by hand.
if [[ -f "$out/summary.md" && "${BENCH_QUICK:-0}" != 1 && $# -eq 0 ]]; then
  log "copying the figures into docs/"
  copy_summary "$out/summary.md" summary
  cp "$out/report.md" "$WARMGATE_ROOT/docs/benchmark-report.md"
  cp "$out/release-origin-reads.svg" "$WARMGATE_ROOT/docs/release-origin-reads.svg"
fi

# The freshness part alone regenerates the freshness table of docs/performance.md and its report in docs/.
if [[ -f "$out/freshness-summary.md" && "${BENCH_QUICK:-0}" != 1 && "$*" == "--only freshness" ]]; then
  log "copying the freshness figures into docs/"
  copy_summary "$out/freshness-summary.md" freshness
  cp "$out/report.md" "$WARMGATE_ROOT/docs/benchmark-freshness.md"
fi

# The cluster part alone regenerates the cluster table of docs/performance.md and its report in docs/.
if [[ -f "$out/cluster-summary.md" && "${BENCH_QUICK:-0}" != 1 && "$*" == "--only cluster" ]]; then
  log "copying the cluster figures into docs/"
  copy_summary "$out/cluster-summary.md" cluster
  cp "$out/report.md" "$WARMGATE_ROOT/docs/benchmark-cluster.md"
fi

# The scale part alone (its --scale-<name> settings allowed: the report lists them) regenerates the
# scale table of docs/performance.md, its report and charts in docs/.
scale_alone() {
  [[ "${1:-}" == "--only" && "${2:-}" == "scale" ]] || return 1
  shift 2
  while [[ $# -gt 0 ]]; do
    [[ "$1" == --scale-* && $# -ge 2 ]] || return 1
    shift 2
  done
}
if [[ -f "$out/scale-summary.md" && "${BENCH_QUICK:-0}" != 1 ]] && scale_alone "$@"; then
  log "copying the scale figures into docs/"
  copy_summary "$out/scale-summary.md" scale
  cp "$out/report.md" "$WARMGATE_ROOT/docs/benchmark-scale.md"
  cp "$out/release-scale-origin-reads.svg" "$out/release-scale-origin-cpu.svg" "$WARMGATE_ROOT/docs/"
fi

# A full run of every part ends with the simulator, which writes its own report and chart.
if [[ $# -eq 0 ]]; then
  run_simulator
fi
