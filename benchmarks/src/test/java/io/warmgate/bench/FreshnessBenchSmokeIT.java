package io.warmgate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The smoke run of the freshness part ({@code hack/bench.sh --only freshness} with
 * {@code BENCH_QUICK=1}): on the real emulator and redis-server, every change reaches every pod,
 * and what holds whatever the machine's speed holds: no lookup fails, the fleet with the fill lease
 * reads a changed deal once, and the one without reads it more often.
 */
class FreshnessBenchSmokeIT {

  private static final Path OUT = Path.of("target", "bench-smoke-freshness");
  private static String report;

  @BeforeAll
  static void runQuickFreshnessBenchmark() throws Exception {
    report = QuickBench.run(OUT, Duration.ofMinutes(10), "--only", "freshness");
  }

  @Test
  void everyChangeReachesEveryPodAndNoLookupFails() {
    assertThat(OUT.resolve("freshness.json")).exists();
    for (String fleet : new String[] {"warmgate", "without the fill lease"}) {
      String[] cells = row(fleet);
      assertThat(cells[2].trim()).as("changes served, %s", fleet).isEqualTo("6 of 6");
      assertThat(cells[9].trim()).as("lookups (failed), %s", fleet).endsWith("(0)");
    }
  }

  @Test
  void theFillLeaseMakesAChangedDealCostOneOriginRead() {
    // "mean / max" origin reads of the changed deal per change; K=2 pods in the quick run.
    String[] lease = row("warmgate")[7].trim().split(" / ");
    String[] noLease = row("without the fill lease")[7].trim().split(" / ");
    assertThat(Integer.parseInt(lease[1])).as("most reads of one change, fill lease").isEqualTo(1);
    assertThat(Double.parseDouble(noLease[0])).as("mean reads per change, no lease")
        .isGreaterThan(Double.parseDouble(lease[0]));
  }

  private static String[] row(String fleet) {
    for (String line : report.split("\n")) {
      if (line.startsWith("| " + fleet + " |")) {
        return line.split("\\|");
      }
    }
    throw new AssertionError("no row '" + fleet + "' in the report:\n" + report);
  }
}
