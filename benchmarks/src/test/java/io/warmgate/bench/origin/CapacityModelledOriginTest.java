package io.warmgate.bench.origin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.warmgate.sim.spanner.SpannerCapacity;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CapacityModelledOriginTest {

  private static Map<String, String> echo(java.util.Collection<String> ids) {
    Map<String, String> out = new LinkedHashMap<>();
    ids.forEach(id -> out.put(id, "v" + id));
    return out;
  }

  @Test
  void answersALightReadInSingleDigitMilliseconds() throws Exception {
    CapacityModelledOrigin<String> origin = new CapacityModelledOrigin<>(
        CapacityModelledOriginTest::echo, SpannerCapacity.Settings.of(1));

    long start = System.nanoTime();
    Map<String, String> values = origin.loadAll(List.of("1", "2"));
    long millis = (System.nanoTime() - start) / 1_000_000;

    assertThat(values).containsEntry("1", "v1").containsEntry("2", "v2");
    assertThat(millis).isBetween(3L, 200L);
  }

  @Test
  void aReadPastTheInstancesCapacityFailsWithDeadlineExceededAfterTheDeadline() throws Exception {
    // 0.01 node answers 225 single-row reads/s: a batch of 2,000 ids is seconds of its work.
    CapacityModelledOrigin<String> origin = new CapacityModelledOrigin<>(
        CapacityModelledOriginTest::echo,
        SpannerCapacity.Settings.of(0.01).withDeadline(Duration.ofMillis(300)));
    List<String> batch = java.util.stream.IntStream.range(0, 2_000).mapToObj(String::valueOf)
        .toList();

    long start = System.nanoTime();
    assertThatThrownBy(() -> origin.loadAll(batch))
        .isInstanceOf(CapacityModelledOrigin.StatusException.class)
        .hasMessageStartingWith("DEADLINE_EXCEEDED");
    assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(300);
  }
}
