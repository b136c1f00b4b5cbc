package io.warmgate.agent.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HotKeysTest {

  private static HotKeys hotKeys(int samplePeriod, int bufferSize) {
    return new HotKeys(samplePeriod, bufferSize, 1_000, Duration.ofMinutes(10));
  }

  @Test
  void periodOneRecordsEveryLookup() {
    HotKeys hot = hotKeys(1, 64);
    hot.record("a");
    hot.record("b");
    hot.record("a");
    hot.recordAll(List.of("a", "c"));
    assertThat(hot.drain()).isEqualTo(Map.of("a", 3, "b", 1, "c", 1));
    assertThat(hot.drain()).isEmpty();
  }

  @Test
  void samplesOneLookupInSamplePeriod() {
    HotKeys hot = hotKeys(16, 1 << 16);
    int lookups = 640_000;
    for (int i = 0; i < lookups; i++) {
      hot.record("k");
    }
    int sampled = hot.drain().get("k");
    // Expected 40 000; the standard deviation is ~194, so ±5 % is over ten of them.
    assertThat(sampled).isBetween(38_000, 42_000);
  }

  @Test
  void aFlushSeesAtMostTheBufferSizeOfTheNewestSamples() {
    HotKeys hot = hotKeys(1, 8);
    for (int i = 0; i < 100; i++) {
      hot.record("old");
    }
    for (int i = 0; i < 8; i++) {
      hot.record("new");
    }
    assertThat(hot.drain()).isEqualTo(Map.of("new", 8));
  }

  @Test
  void nullEmptyAndOverlongIdsAreNotRecorded() {
    HotKeys hot = hotKeys(1, 8);
    hot.record(null);
    hot.record("");
    hot.record("x".repeat(HotKeys.MAX_ID_BYTES + 1));
    hot.record("\u00e9".repeat(HotKeys.MAX_ID_BYTES / 2 + 1));
    hot.record("x".repeat(HotKeys.MAX_ID_BYTES));
    assertThat(hot.drain()).containsOnlyKeys("x".repeat(HotKeys.MAX_ID_BYTES));
  }

  @Test
  void regressionIdsWithUnpairedSurrogatesAreNotRecordedAsQuestionMarks() {
    HotKeys hot = hotKeys(1, 8);
    hot.record("\uD800");
    hot.record("a\uDC00");
    hot.record("\uD83D\uDE80");
    assertThat(hot.drain()).containsOnlyKeys("\uD83D\uDE80");
  }

  @Test
  void theUnsampledPathAllocatesNothing() {
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    HotKeys hot = hotKeys(1 << 30, 8); // practically never samples
    for (int i = 0; i < 200_000; i++) {
      hot.record("warm-up");
    }
    long before = threads.getThreadAllocatedBytes(thread);
    for (int i = 0; i < 1_000_000; i++) {
      hot.record("deal-000042");
    }
    long allocated = threads.getThreadAllocatedBytes(thread) - before;
    // A million calls: a single allocation per call would be at least 16 MB. The slack covers
    // the measurement itself and a rare sample.
    assertThat(allocated).isLessThan(4_096);
  }

  @Test
  void refusesSettingsOutOfRange() {
    assertThatThrownBy(() -> new HotKeys(12, 8, 10, Duration.ofMinutes(1)))
        .hasMessageContaining("samplePeriod must be a positive power of two").hasMessageContaining("12");
    assertThatThrownBy(() -> new HotKeys(16, 0, 10, Duration.ofMinutes(1)))
        .hasMessageContaining("bufferSize must be a positive power of two");
    assertThatThrownBy(() -> new HotKeys(16, 8, 0, Duration.ofMinutes(1)))
        .hasMessageContaining("capacity must be positive");
    assertThatThrownBy(() -> new HotKeys(16, 8, 10, Duration.ZERO))
        .hasMessageContaining("halfLife must be at least 1 ms");
  }

  @Test
  void aFlushBeyondTheBoundKeepsHotIdsExactlyAndEveryScoreUnbiased() {
    java.util.Map<String, Integer> counts = new java.util.HashMap<>();
    for (int i = 0; i < 2_000; i++) {
      counts.put("tail-" + i, 1 + i % 3);
    }
    for (int i = 0; i < 20; i++) {
      counts.put("hot-" + i, 200);
    }
    java.util.Random random = new java.util.Random(7);
    double tailSum = 0;
    int trials = 200;
    for (int trial = 0; trial < trials; trial++) {
      java.util.Map<String, Double> sent = HotKeys.bound(counts, 256, random);
      assertThat(sent.size()).isBetween(200, 312);
      for (int i = 0; i < 20; i++) {
        assertThat(sent.get("hot-" + i)).isEqualTo(200.0);
      }
      tailSum += sent.getOrDefault("tail-1", 0.0); // sampled twice
    }
    assertThat(tailSum / trials).as("mean increment of an id sampled twice").isBetween(1.5, 2.5);
    assertThat(HotKeys.bound(java.util.Map.of("a", 1), 256, random)).containsEntry("a", 1.0);
  }
}
