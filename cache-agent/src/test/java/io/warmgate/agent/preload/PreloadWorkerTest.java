package io.warmgate.agent.preload;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.agent.TieredCache;
import org.junit.jupiter.api.Test;

/** Which ids of a warm job's list the worker loads and which it counts as errors up front. */
class PreloadWorkerTest {

  @Test
  void idsTheCacheWouldRefuseAreCountedAsErrorsInsteadOfFailingTheirBatch() {
    assertThat(PreloadWorker.isValidId("deal-1")).isTrue();
    assertThat(PreloadWorker.isValidId("d\u00e9al \uD83D\uDE00:1")).as("a surrogate pair").isTrue();
    assertThat(PreloadWorker.isValidId("x".repeat(TieredCache.MAX_ID_LENGTH))).isTrue();
    assertThat(PreloadWorker.isValidId("")).isFalse();
    assertThat(PreloadWorker.isValidId(null)).isFalse();
    assertThat(PreloadWorker.isValidId("x".repeat(TieredCache.MAX_ID_LENGTH + 1))).isFalse();
    assertThat(PreloadWorker.isValidId("deal-\uD800")).as("an unpaired high surrogate").isFalse();
    assertThat(PreloadWorker.isValidId("\uDC00deal")).as("an unpaired low surrogate").isFalse();
  }
}
