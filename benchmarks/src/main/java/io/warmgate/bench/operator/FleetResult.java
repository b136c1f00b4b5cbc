package io.warmgate.bench.operator;

import io.warmgate.bench.common.Summary.Verdict;
import io.warmgate.operator.policy.CachePolicyReconciler;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Figures of one {@link FleetFootprintBench} run, and the report with a verdict per bar.
 *
 * @param background the API server's own requests per second with no operator running
 * @param idle the operator before any object existed
 * @param withUnrelated the operator once the unrelated objects existed, before any policy
 * @param atFirst the operator with the first tenth of the policies Ready
 * @param loaded the operator with every policy Ready, settled
 * @param unrelatedCreated how long creating the unrelated objects took
 * @param fleetCreated how long sending the Rollouts and policies after the first tenth took
 * @param fleetRequests resource requests the API server served meanwhile, from every client
 * @param allReadyAfterLast from the last policy sent until every policy was Ready
 * @param newPolicy create → Ready of a policy created alone once the fleet was Ready
 * @param nativeSummary {@code jcmd VM.native_memory summary} with every policy Ready, or null
 *     when native memory was not tracked
 * @param differingSettings the run's settings that differ from the chart's, and why
 */
record FleetResult(FleetSettings fleet, double background, OperatorLook idle,
    OperatorLook withUnrelated, OperatorLook atFirst, OperatorLook loaded, Duration unrelatedCreated,
    Duration fleetCreated, long fleetRequests, Duration allReadyAfterLast, Samples newPolicy,
    FleetFootprintBench.SteadyLoad steady, Restart restart, String nativeSummary,
    List<String> differingSettings) {

  static final double RSS_SHARE_BAR = 0.80;
  static final double SERIES_PER_POLICY_BAR = 10;
  static final double BYTES_PER_POLICY_BAR = 30 * 1024;
  static final Duration ALL_READY_BAR = Duration.ofSeconds(30);
  static final double NEW_POLICY_P50_BAR_MS = 500;
  /** 16 MiB for the 20,000 Deployments and 5,000 Secrets, in proportion for fewer. */
  static final double UNRELATED_BYTES_PER_OBJECT_BAR = 16.0 * 1048576 / 25_000;
  static final double API_PER_SECOND_BAR = 5;
  static final double VALKEY_PER_SECOND_BAR = 5;
  static final Duration RESTART_BAR = Duration.ofSeconds(60);

  /** The highest resident memory either operator process reached, in bytes. */
  long peakRssBytes() {
    return Math.max(loaded.process().hwmKib(), restart.process().hwmKib()) * 1024;
  }

  double seriesPerPolicy() {
    return (double) (loaded.series() - idle.series()) / fleet.policies();
  }

  /** Live heap per policy added after the first tenth, which carries the fixed part. */
  double bytesPerPolicy() {
    return (double) (loaded.heap().totalBytes() - atFirst.heap().totalBytes()) / added();
  }

  private int added() {
    return fleet.policies() - fleet.policies() / 10;
  }

  /** Live heap the unrelated objects moved, in bytes (negative when it shrank). */
  long unrelatedBytes() {
    return withUnrelated.heap().totalBytes() - idle.heap().totalBytes();
  }

  double unrelatedBar() {
    return UNRELATED_BYTES_PER_OBJECT_BAR * fleet.unrelatedObjects();
  }

  String render() {
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "Fleet: %,d CachePolicies each on its own Rollout, "
        + "%,d unrelated Deployments and %,d unrelated Secrets of %d KiB in %d other namespaces; "
        + "the operator in its own JVM (%s), one Redis.%n%n", fleet.policies(),
        fleet.deployments(), fleet.secrets(), fleet.secretBytes() / 1024, fleet.namespaces(),
        String.join(" ", FleetFootprintBench.CHART.jvmCommandLine())));
    out.append("| measured | figure | bar | met |\n| --- | ---: | --- | --- |\n");
    long limit = FleetFootprintBench.CHART.memoryLimitBytes();
    row(out, "peak RSS (VmHWM, first process and after the restart)",
        mib(peakRssBytes()) + " (" + pct((double) peakRssBytes() / limit) + " of the "
            + mib(limit) + " limit)", "≤ 80 % of the limit",
        peakRssBytes() <= RSS_SHARE_BAR * limit);
    row(out, "RSS, every policy Ready", mib(loaded.process().rssKib() * 1024), "–", null);
    row(out, "live heap after full GC: idle → unrelated objects → a tenth of the policies → "
        + "every policy Ready", mib(idle.heap().totalBytes()) + " → "
            + mib(withUnrelated.heap().totalBytes()) + " → " + mib(atFirst.heap().totalBytes())
            + " → " + mib(loaded.heap().totalBytes()), "–", null);
    row(out, "threads, every policy Ready", Long.toString(loaded.process().threads()), "–", null);
    row(out, "live heap per policy, from a tenth to all of them (the CachePolicy and its "
        + "Rollout's cached identity included)",
        String.format(Locale.ROOT, "%.1f KiB", bytesPerPolicy() / 1024), "≤ 30 KiB",
        bytesPerPolicy() <= BYTES_PER_POLICY_BAR);
    row(out, "metric series: idle → every policy Ready; per policy",
        String.format(Locale.ROOT, "%,d → %,d; %.2f", idle.series(), loaded.series(),
            seriesPerPolicy()), "≤ 10 per policy", seriesPerPolicy() <= SERIES_PER_POLICY_BAR);
    row(out, "every policy Ready, after the last one was sent",
        secs(allReadyAfterLast) + " (sending the last " + String.format(Locale.ROOT, "%,d", added())
            + " took " + secs(fleetCreated) + ")", "≤ 30 s",
        allReadyAfterLast.compareTo(ALL_READY_BAR) <= 0);
    row(out, "a new policy Ready, " + newPolicy.count() + " created one at a time: p50 / p95 / max",
        newPolicy.cell(), "p50 ≤ 500 ms", newPolicy.p50() <= NEW_POLICY_P50_BAR_MS);
    row(out, "live heap moved by the unrelated objects", mib(unrelatedBytes()),
        "≤ " + mib((long) unrelatedBar()) + " (16 MiB per 25,000 objects)",
        unrelatedBytes() <= unrelatedBar());
    row(out, "the operator's API requests per second at steady state (" + steady.apiRequests()
        + " in " + steady.window().toSeconds() + " s, less the API server's own "
        + num(background) + "/s)", num(steady.apiPerSecond()), "≤ 5",
        steady.apiPerSecond() <= API_PER_SECOND_BAR);
    row(out, "Valkey commands per second at steady state (" + steady.valkeyCommands() + " in "
        + steady.window().toSeconds() + " s)", num(steady.valkeyPerSecond()), "≤ 5",
        steady.valkeyPerSecond() <= VALKEY_PER_SECOND_BAR);
    row(out, "reconciliations at steady state", Long.toString(steady.reconciliations()), "–",
        null);
    row(out, "restart to ready: /readyz; webhook serving; every policy reconciled once",
        secs(restart.toReady()) + " (" + secs(restart.readyz()) + "; "
            + secs(restart.webhookServing()) + "; " + secs(restart.allReconciled()) + ")",
        "≤ 60 s", restart.toReady().compareTo(RESTART_BAR) <= 0);
    row(out, "LIST requests for Deployments while restarting (pages of "
        + CachePolicyReconciler.LIST_PAGE + ")", Long.toString(restart.deploymentLists()), "–",
        null);
    row(out, "admissions during the restart: configured / sent; slowest",
        restart.injected() + " / " + restart.admissions() + "; "
            + Samples.ms(restart.slowestAdmissionMs()), "–", null);
    row(out, "admissions that took the webhook's timeout ("
        + FleetFootprintBench.CHART.webhookTimeout().toSeconds() + " s) or went unconfigured "
        + "once the webhook served",
        restart.timedOut() + " timed out, " + restart.missedAfterServing() + " unconfigured",
        "0", restart.timedOut() == 0 && restart.missedAfterServing() == 0);
    out.append(String.format(Locale.ROOT, "%nCreating the unrelated objects took %s. While the "
        + "last %,d Rollouts and policies were sent (%s), the API server served %,d resource "
        + "requests from every client.%n", secs(unrelatedCreated), added(), secs(fleetCreated),
        fleetRequests));
    out.append("\nSettings that differ from the chart's:\n");
    differingSettings.forEach(s -> out.append("- ").append(s)
        .append('\n'));
    out.append(String.format(Locale.ROOT, "%nGrowth per policy added (a tenth → every policy "
        + "Ready):%n```%n%s```%n", loaded.heap().growthSince(atFirst.heap(), added(), 12)));
    out.append(String.format(Locale.ROOT, "%nGrowth per unrelated object (idle → unrelated "
        + "objects):%n```%n%s```%n", withUnrelated.heap().growthSince(idle.heap(),
            fleet.unrelatedObjects(), 8)));
    out.append(String.format(Locale.ROOT, "%nClass histogram with every policy Ready, top 15 "
        + "(jcmd GC.class_histogram):%n```%n%s```%n", loaded.heap().top(15)));
    if (nativeSummary != null) {
      out.append(String.format(Locale.ROOT, "%nNative memory with every policy Ready (jcmd "
          + "VM.native_memory summary; tracking on, which costs memory itself):%n```%n%s```%n",
          nativeSummary.strip()));
    }
    return out.toString();
  }

  private static void row(StringBuilder out, String what, String figure, String bar,
      Boolean met) {
    out.append("| ").append(what).append(" | ").append(figure).append(" | ").append(bar)
        .append(" | ").append(met == null ? Verdict.NO_BAR.cell() : Verdict.of(met).cell())
        .append(" |\n");
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
  }

  private static String pct(double share) {
    return String.format(Locale.ROOT, "%.0f %%", share * 100);
  }

  private static String secs(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }
}
