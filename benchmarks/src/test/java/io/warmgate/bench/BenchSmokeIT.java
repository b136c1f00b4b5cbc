package io.warmgate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The smoke run of every benchmark ({@code hack/bench.sh} with {@code BENCH_QUICK=1}), as CI runs
 * it: the benchmarks start their real components, finish, and write a report whose counts hold
 * what the architecture guarantees whatever the machine's speed, and DESIGN.md's bars on counts
 * that the quick sizes reach. Timings are not checked here; they are the report's business.
 */
class BenchSmokeIT {

  private static final Path OUT = Path.of("target", "bench-smoke");
  /** The quick run's fleet: K pods. */
  private static final int AGENTS = 3;
  /** DESIGN.md: cold fleet with the fill lease, origin reads per requested distinct key. */
  private static final double COLD_START_BAR = 1.02;
  /** DESIGN.md: across L2 expiry with the refresh lock, origin reloads per key per TTL cycle. */
  private static final double STAMPEDE_BAR = 1.05;
  private static String report;

  @BeforeAll
  static void runQuickBenchmarks() throws Exception {
    report = QuickBench.run(OUT, Duration.ofMinutes(15));
  }

  @Test
  void everyPartReports() {
    assertThat(report).contains("## Data path (JMH)", "## Fleet cold start", "## Expiry stampede",
        "## Preload", "## Release", "## Operator", "warm criterion met → pause released");
    assertThat(OUT.resolve("fleet.json")).exists();
    assertThat(OUT.resolve("release.json")).exists();
    assertThat(OUT.resolve("jmh-threads-1.json")).exists();
    assertThat(OUT.resolve("operator.json")).exists();
  }

  @Test
  void eachPodAloneReadsEveryKeyOncePerPod() {
    // With L1 only and a clock that stands still, every pod reads every distinct key of the trace
    // exactly once.
    assertThat(readsPerDistinctKey("L1 only")).isEqualTo((double) AGENTS);
  }

  @Test
  void withTheFillLeaseTheColdFleetReadsEachRequestedKeyOnce() {
    double noLease = readsPerDistinctKey("no fill lease");
    double lease = readsPerDistinctKey("cold, fill lease");
    // Shared L2 alone: pods read one another's values, but miss together while a load is in flight.
    assertThat(noLease).as("reads per requested distinct key, shared L2, no fill lease")
        .isLessThan(AGENTS);
    assertThat(lease).as("reads per requested distinct key, shared L2 with the fill lease "
        + "(DESIGN.md bar ≤ %.2f)", COLD_START_BAR).isLessThanOrEqualTo(COLD_START_BAR)
        .isLessThanOrEqualTo(noLease);
  }

  @Test
  void loaderAndWireCountsAgree() {
    assertThat(report).contains("Loader and wire counts agree.").doesNotContain("⚠");
  }

  @Test
  void refreshLockReloadsEachKeyOncePerTtlCycle() {
    double lock = cell("refresh-ahead under the Valkey lock", 4);
    assertThat(lock).as("reloads per key per L2 TTL cycle under the refresh lock (DESIGN.md bar "
        + "≤ %.2f)", STAMPEDE_BAR).isLessThanOrEqualTo(STAMPEDE_BAR)
        .isLessThan(cell("refresh-ahead off", 4));
  }

  @Test
  void noLookupFailed() {
    for (String fleet : new String[] {"L1 only", "no fill lease", "cold, fill lease"}) {
      assertThat(cell(fleet, 9)).as("failed lookups, %s", fleet).isZero();
    }
    assertThat(cell("refresh-ahead off", 6)).as("failed lookups, no lock").isZero();
    assertThat(cell("refresh-ahead under the Valkey lock", 6)).as("failed lookups, lock").isZero();
  }

  @Test
  void releaseChartHasOneLinePerStrategy() throws Exception {
    String svg = Files.readString(OUT.resolve("release-origin-reads.svg"));
    assertThat(svg.split("<polyline", -1)).as("polylines").hasSize(6);
    for (String strategy : new String[] {"(a) all new pods at once", "(b) one pod at a time",
        "(c) canary fills L2", "(d) warmgate Organic", "(e) warmgate Preload"}) {
      assertThat(svg).contains(strategy);
      assertThat(lastCell(timeRow(strategy))).as("failed lookups, %s", strategy).isZero();
    }
  }

  @Test
  void preloadReleaseIsGatedByAWarmJobTheOperatorOpened() {
    // The operator's gate opened a warm job (preloaded ids), the canary's worker filled it and the
    // gate released the rollout once coverage was reached, not at maxWait.
    assertThat(costCell("(e) warmgate Preload", "preloaded")).as("preloaded ids").isPositive();
    assertThat(timeRow("(e) warmgate Preload")).contains("Promoted after");
    assertThat(report).contains("(e) warmgate Preload, steps as seen from outside")
        .containsPattern("agent registered \\+[0-9.]+ s");
  }

  private static double readsPerDistinctKey(String fleet) {
    return cell(fleet, 6);
  }

  /** The row naming {@code label} in the release's second table, what each release cost in time. */
  private static String timeRow(String label) {
    String tail = report.substring(report.indexOf("What each release cost in time"));
    for (String line : tail.split("\n")) {
      if (line.startsWith("| ") && line.contains(label)) {
        return line;
      }
    }
    throw new AssertionError("no row '" + label + "' in the release's time table:\n" + report);
  }

  /** The figure under {@code header} in the row naming {@code label} of the release's cost table. */
  private static double costCell(String label, String header) {
    String table = report.substring(report.indexOf("What each release cost the origin"));
    List<String> headers = null;
    for (String line : table.split("\n")) {
      if (!line.startsWith("| ")) {
        continue;
      }
      List<String> cells = List.of(line.split("\\|")).stream().map(String::trim).toList();
      if (headers == null) {
        headers = cells;
      } else if (line.contains(label)) {
        return Double.parseDouble(cells.get(headers.indexOf(header)).replace("*", "")
            .replace(",", ""));
      }
    }
    throw new AssertionError("no row '" + label + "' under '" + header + "' in:\n" + report);
  }

  private static double lastCell(String row) {
    String[] cells = row.split("\\|");
    return Double.parseDouble(cells[cells.length - 1].replace(",", "").trim());
  }

  /** The figure in column {@code column} (the label is column 0) of the first row naming {@code label}. */
  private static double cell(String label, int column) {
    for (String line : report.split("\n")) {
      if (line.startsWith("| ") && line.contains(label)) {
        String[] cells = line.split("\\|");
        if (cells.length > column + 1) {
          return Double.parseDouble(cells[column + 1].replace("*", "").replace(",", "").trim());
        }
      }
    }
    throw new AssertionError("no row '" + label + "' in the report:\n" + report);
  }
}
