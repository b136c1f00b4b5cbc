package io.warmgate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.warmgate.operator.model.WarmupSpec;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The smoke run of the release at production traffic ({@code hack/bench.sh --only scale} with
 * {@code BENCH_QUICK=1}): real agents, Redis, kube-apiserver and operator against the
 * capacity-modelled origin (a stand-in), strategies (a) and (e) once each. It checks what the
 * quick sizes reach whatever the machine's speed: releasing every pod at once asks the origin for
 * a spike, and the warmgate Preload release stays under the origin's capacity without a failed
 * lookup.
 */
class ScaleBenchSmokeIT {

  private static final Path OUT = Path.of("target", "bench-smoke-scale");
  /**
   * (a)'s peak over its steady rate at the quick sizes: 1.9 in the runs seen; the full bar (5×)
   * needs a fleet's real-time traffic, which the report and the simulator carry.
   */
  private static final double QUICK_SPIKE = 1.4;
  /** The CachePolicy's default {@code warmup.minCoverage}, which the quick run keeps. */
  private static final int MIN_COVERAGE = new WarmupSpec().getMinCoverage();
  private static String report;
  private static JsonNode results;

  @BeforeAll
  static void runQuickScaleBenchmark() throws Exception {
    report = QuickBench.run(OUT, Duration.ofMinutes(8), "--only", "scale");
    results = new ObjectMapper().readTree(OUT.resolve("release-scale.json").toFile())
        .get("results");
  }

  @Test
  void theScaleSectionReportsOnTheStandIn() {
    assertThat(report).contains("## Release at production traffic", "**The origin is a stand-in**",
        "Bars (on the medians)");
    assertThat(OUT.resolve("release-scale-origin-cpu.svg")).exists();
  }

  @Test
  void releasingEveryPodAtOnceAsksTheOriginForASpike() {
    JsonNode a = run("ALL_AT_ONCE");
    assertThat(a.get("peakPerSecond").asDouble())
        .as("(a)'s peak origin reads/s against %s × its steady %s", QUICK_SPIKE,
            a.get("steadyPerSecond").asDouble())
        .isGreaterThanOrEqualTo(QUICK_SPIKE * a.get("steadyPerSecond").asDouble());
  }

  @Test
  void preloadStaysUnderTheCapacityWithoutAFailedLookup() {
    JsonNode e = run("PRELOAD");
    assertThat(e.get("originLoad").get("peakCpu").asDouble())
        .as("(e)'s peak CPU asked of the modelled origin").isLessThan(1.0);
    assertThat(e.get("failures").asLong()).as("(e)'s failed lookups").isZero();
    assertThat(e.get("originLoad").get("deadlineExceeded").asLong())
        .as("(e)'s DEADLINE_EXCEEDED calls").isZero();
  }

  @Test
  void preloadIsReleasedByTheWarmCriterionNotByMaxWait() {
    JsonNode e = run("PRELOAD");
    assertThat(e.get("gatePhase").asText()).as("(e)'s gate phase at release").isEqualTo("Promoted");
    assertThat(e.get("coverageAtRelease").asDouble())
        .as("(e)'s coverage at release, %% (the policy's minCoverage is %d)", MIN_COVERAGE)
        .isGreaterThanOrEqualTo(MIN_COVERAGE);
  }

  private static JsonNode run(String strategy) {
    for (JsonNode r : results) {
      if (strategy.equals(r.get("strategy").asText())) {
        return r;
      }
    }
    throw new AssertionError("no run of " + strategy + " in release-scale.json:\n" + report);
  }
}
