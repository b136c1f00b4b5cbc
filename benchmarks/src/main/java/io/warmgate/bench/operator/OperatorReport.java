package io.warmgate.bench.operator;

import io.warmgate.bench.common.Summary;
import io.warmgate.testing.KubeApiServer;
import java.util.Locale;
import java.util.function.Function;

/** Renders the operator benchmarks as a Markdown section, baseline beside ours. */
final class OperatorReport {

  /** The bar for the gate reaction. */
  /** The design's bar: warm criterion met → canary released, p95. */
  static final double REACTION_BAR_MS = 1_000;
  /** The design's bar: a same-schema canary at the gate step → released, p95. */
  static final double SAME_SCHEMA_BAR_MS = 5_000;

  private OperatorReport() {}

  static String render(OperatorBenchSettings s, GateBench.Result gate, ReleaseTimes release,
      FootprintBench.Result footprint, Summary summary) {
    StringBuilder md = new StringBuilder("## Operator: rollout gate and footprint\n\n");
    if (s.quick()) {
      md.append("Quick smoke run (few repetitions, short settling): the figures only show the "
          + "benchmarks run.\n\n");
    }
    md.append("A real kube-apiserver ").append(KubeApiServer.KUBERNETES_VERSION)
        .append(" with etcd and a real redis-server, started by this run. No Argo controller runs: "
            + "the benchmark writes the Rollout's status as the controller does and registers "
            + "agents, hot set and value keys in Valkey with the agent library's own key layout.\n\n");
    gate(md, s, gate);
    release(md, s, release);
    footprint(md, footprint);
    summary.add("warm criterion met → canary released (operator in-process, real kube-apiserver; "
        + "p50 / p95 / max)", "10-min fixed pause (a constant)", gate.reaction().cell(),
        "≤ " + Samples.ms(REACTION_BAR_MS) + " p95", gate.reaction().count() > 0
            && gate.reaction().p95() <= REACTION_BAR_MS);
    summary.add("same schema: canary reaches the gate step → released (p50 / p95 / max)",
        "10-min fixed pause (a constant)", gate.sameSchema().cell(), "≤ 5 s p95",
        gate.sameSchema().count() > 0 && gate.sameSchema().p95() <= SAME_SCHEMA_BAR_MS);
    summary.add("operator RSS, idle → " + footprint.policies() + " CachePolicies + Rollouts Ready",
        mib(footprint.idle().rssMib()), mib(footprint.loaded().rssMib()) + "; reconcile p50 "
            + Samples.ms(footprint.singleLoaded().p50()));
    return md.toString();
  }

  private static void gate(StringBuilder md, OperatorBenchSettings s, GateBench.Result gate) {
    md.append("### Gate reaction (operator in the benchmark JVM)\n\n");
    md.append("| measured | bar | reference: fixed 10-min pause | warmgate p50 / p95 / max | n |\n");
    md.append("| --- | ---: | ---: | ---: | ---: |\n");
    md.append("| warm criterion met → pause released | ≤ " + Samples.ms(REACTION_BAR_MS) + " p95 | does not react (waits the full 10 min) | ")
        .append(gate.reaction().cell()).append(" | ").append(gate.reaction().count()).append(" |\n");
    md.append("| same schema: canary reaches the gate step → released (`Skipped`) | | 10 min | ")
        .append(gate.sameSchema().cell()).append(" | ").append(gate.sameSchema().count())
        .append(" |\n\n");
    md.append(String.format(Locale.ROOT, "Each measurement has its own Rollout (K = %d replicas), "
        + "CachePolicy and cache, with %d stable and %d canary agents registered. Warm criterion: "
        + "`Preload`, hot set %,d ids, minCoverage %d %%; the operator opens the warm job, the "
        + "benchmark plays the preloading agent: the canary namespace holds one key fewer than "
        + "needed; that key is written 0–1 s (uniformly, fixed seed) after the gate reported "
        + "`Warming`, so it lands anywhere in the gate's one-second cycle; the clock starts "
        + "when Valkey acknowledges it and stops at the "
        + "Rollout watch event without pause conditions. Same schema: the clock starts when the "
        + "status write that moves the canary onto the gate step is sent. One unrecorded round of "
        + "each runs first.%n%n", s.pods(), s.pods(), s.canaryPods(), s.hotSetSize(),
        s.minCoverage()));
    double p95 = gate.reaction().p95();
    md.append(p95 <= REACTION_BAR_MS ? "Gate reaction p95 within the " + Samples.ms(REACTION_BAR_MS)
        + " bar.\n\n" : "Over the " + Samples.ms(REACTION_BAR_MS) + " bar: p95 " + Samples.ms(p95)
        + ".\n\n");
  }

  private static void release(StringBuilder md, OperatorBenchSettings s, ReleaseTimes r) {
    md.append("### Time held at the gate step, ").append(s.pods()).append("-pod rollout\n\n");
    md.append("| scenario | reference: fixed 10-min pause | warmgate p50 (p95) | warmgate figure is |\n");
    md.append("| --- | ---: | ---: | --- |\n");
    md.append(String.format(Locale.ROOT, "| new schema, `Preload`, hot set %,d, minCoverage %d %% "
        + "| %s | %s (%s) | **computed**: %,d keys ÷ %s keys/s (**input** `preloadKeysPerSecond`) = "
        + "%s, + measured gate reaction %s (%s) |%n", s.hotSetSize(), s.minCoverage(),
        sec(r.referenceSeconds()), sec(r.newSchemaP50Seconds()), sec(r.newSchemaP95Seconds()),
        r.keysNeeded(), num(r.preloadKeysPerSecond()), sec(r.warmSeconds()),
        sec(r.reactionP50Seconds()), sec(r.reactionP95Seconds())));
    md.append(String.format(Locale.ROOT, "| same schema | %s | %s (%s) | measured |%n%n",
        sec(r.referenceSeconds()), sec(r.sameSchemaP50Seconds()), sec(r.sameSchemaP95Seconds())));
    md.append("The K pods share the canary's L2 namespace and one agent preloads it, so neither "
        + "column grows with K; the steps before and after the gate take the same time in both "
        + "and are left out. The preload rate is an input (the preload benchmark's measured "
        + "keys/s), not measured here.\n\n");
  }

  private static void footprint(StringBuilder md, FootprintBench.Result f) {
    md.append("### Operator footprint (its own JVM, ").append(f.policies())
        .append(" CachePolicies + ").append(f.policies()).append(" Rollouts)\n\n");
    md.append("JVM options: `").append(String.join(" ", FootprintBench.JVM_OPTIONS))
        .append("` (the chart's defaults under its memory limit). Memory sampled after settling; the "
            + "baseline before any policy existed. One policy at a time: each is created, awaited "
            + "and deleted before the next (after one unrecorded policy); bursts: all sent back to "
            + "back from one client, each timed from its own request.\n\n");
    md.append("| measured | baseline: idle, 0 policies | ").append(f.policies())
        .append(" policies, all Ready | after updating all ").append(f.policies()).append(" |\n");
    md.append("| --- | ---: | ---: | ---: |\n");
    row(md, "RSS (VmRSS)", f, p -> mib(p.rssMib()));
    row(md, "peak RSS so far (VmHWM)", f, p -> mib(p.hwmMib()));
    row(md, "heap used (incl. garbage, from /metrics)", f, p -> mib(p.heapUsedBytes() / 1048576));
    row(md, "heap committed", f, p -> mib(p.heapCommittedBytes() / 1048576));
    row(md, "threads", f, p -> Long.toString(p.threads()));
    row(md, "CPU time since start", f, p -> sec(p.cpu().toMillis() / 1000.0));
    md.append('\n');
    md.append("| reconcile latency, send → `Ready=True` at the new `observedGeneration` | "
        + "baseline: idle, 0 policies | with ").append(f.policies()).append(" policies |\n");
    md.append("| --- | ---: | ---: |\n");
    md.append("| one policy created at a time (p50 / p95 / max, n) | ").append(cell(f.singleIdle()))
        .append(" | ").append(cell(f.singleLoaded())).append(" |\n");
    md.append("| burst: ").append(f.policies()).append(" created back to back | — | ")
        .append(cell(f.burstCreate())).append(" |\n");
    md.append("| burst: ").append(f.policies()).append(" spec updates back to back | — | ")
        .append(cell(f.burstUpdate())).append(" |\n\n");
  }

  private static void row(StringBuilder md, String label, FootprintBench.Result f,
      Function<ProcessSample, String> value) {
    md.append("| ").append(label).append(" | ").append(value.apply(f.idle())).append(" | ")
        .append(value.apply(f.loaded())).append(" | ").append(value.apply(f.afterUpdate()))
        .append(" |\n");
  }

  private static String cell(Samples samples) {
    return samples.cell() + ", n = " + samples.count();
  }

  private static String mib(double mib) {
    return String.format(Locale.ROOT, "%.1f MiB", mib);
  }

  private static String sec(double seconds) {
    return String.format(Locale.ROOT, seconds >= 100 ? "%.0f s" : "%.2f s", seconds);
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, v == Math.rint(v) ? "%,.0f" : "%,.1f", v);
  }
}
