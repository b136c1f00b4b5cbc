package io.warmgate.agent.preload;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.agent.TieredCache;
import org.junit.jupiter.api.Test;

/** Which ids of a warm job's list the worker loads and which it counts as errors up front. */
class PreloadWorkerTest {

  @Test
  void idsTheCacheWouldRefuseAreCountedAsErrorsInsteadOfFailingTheirBatch() {
    int max = TieredCache.DEFAULT_MAX_ID_BYTES;
    assertThat(PreloadWorker.isValidId("deal-1", max)).isTrue();
    assertThat(PreloadWorker.isValidId("d\u00e9al \uD83D\uDE00:1", max)).as("a surrogate pair")
        .isTrue();
    assertThat(PreloadWorker.isValidId("x".repeat(max), max)).isTrue();
    assertThat(PreloadWorker.isValidId("\u00e9".repeat(max / 2), max)).isTrue();
    assertThat(PreloadWorker.isValidId("", max)).isFalse();
    assertThat(PreloadWorker.isValidId(null, max)).isFalse();
    assertThat(PreloadWorker.isValidId("x".repeat(max + 1), max)).isFalse();
    assertThat(PreloadWorker.isValidId("\u00e9".repeat(max / 2 + 1), max)).as("bytes, not chars")
        .isFalse();
    assertThat(PreloadWorker.isValidId("abcde", 4)).as("the cache's own limit").isFalse();
    assertThat(PreloadWorker.isValidId("deal-\uD800", max)).as("an unpaired high surrogate")
        .isFalse();
    assertThat(PreloadWorker.isValidId("\uDC00deal", max)).as("an unpaired low surrogate")
        .isFalse();
  }
}
