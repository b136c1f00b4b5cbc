package io.warmgate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The smoke run of the cluster part ({@code hack/bench.sh --only cluster} with
 * {@code BENCH_QUICK=1}): the L2 benchmarks start a real Redis cluster, finish, and report counts
 * that hold whatever the machine's speed.
 */
class ClusterBenchSmokeIT {

  private static final Path OUT = Path.of("target", "bench-smoke-cluster");
  private static String report;

  @BeforeAll
  static void runQuickClusterBenchmarks() throws Exception {
    report = QuickBench.run(OUT, Duration.ofMinutes(10), "--only", "cluster");
  }

  @Test
  void bothClusterSectionsReport() {
    assertThat(report).contains("## Data path on a Valkey cluster (JMH)",
        "## Fleet cold start on a Valkey cluster", "Lettuce cluster `GET` round trip");
    assertThat(OUT.resolve("jmh-cluster-threads-1.json")).exists();
    assertThat(OUT.resolve("fleet-cluster.json")).exists();
  }

  @Test
  void theClusterFleetLoadsEachKeyAboutOnceAndFailsNoLookup() {
    assertThat(report).contains("Loader and wire counts agree.").doesNotContain("⚠");
    for (String fleet : new String[] {"L1 only", "no fill lease", "cold, fill lease"}) {
      assertThat(cell(fleet, 9)).as("failed lookups, %s", fleet).isZero();
    }
    // K=3 in the quick run: sharing the cluster, the fleet reads fewer than each pod alone.
    assertThat(cell("L1 only", 6)).isEqualTo(3.00);
    assertThat(cell("cold, fill lease", 6)).isLessThan(3.00);
  }

  private static double cell(String label, int column) {
    for (String line : report.split("\n")) {
      if (line.startsWith("| ") && line.contains(label)) {
        String[] cells = line.split("\\|");
        return Double.parseDouble(cells[column + 1].replace("*", "").replace(",", "").trim());
      }
    }
    throw new AssertionError("no row '" + label + "' in the report:\n" + report);
  }
}
