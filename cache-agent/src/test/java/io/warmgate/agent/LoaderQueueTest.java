package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The default loader pool's queue is bounded: a stalled origin fails lookups, never the heap. */
class LoaderQueueTest {

  @Test
  void aStalledOriginFillsTheQueueAndFurtherLookupsFailAtOnceSayingWhy() {
    CountingOrigin origin = new CountingOrigin();
    for (int i = 0; i < 200; i++) {
      origin.put("id-" + i, "v" + i);
    }
    origin.block();
    try (TieredCache<String> cache = WarmGate.newBuilder(String.class, origin).cacheName("queue")
        .loaderQueue(3).build()) {
      List<CompletableFuture<String>> lookups = new ArrayList<>();
      CompletableFuture<String> refused = null;
      for (int i = 0; i < 200 && refused == null; i++) {
        CompletableFuture<String> lookup = cache.getAsync("id-" + i);
        if (lookup.isCompletedExceptionally()) {
          refused = lookup;
        } else {
          lookups.add(lookup);
        }
      }

      assertThat(refused).as("a lookup refused while the origin is stalled").isNotNull();
      int threads = WarmGate.defaultLoaderThreads();
      assertThat(lookups).as("lookups accepted: one per loader thread, then 3 queued")
          .hasSize(threads + 3);
      assertThatThrownBy(refused::join).isInstanceOf(CompletionException.class)
          .cause().isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("cache 'queue' could not start an origin load: its 3 queued origin "
              + "loads all wait for its " + threads + " loader threads")
          .hasMessageContaining("WarmGate.loaderQueue");

      origin.release();
      for (int i = 0; i < lookups.size(); i++) {
        assertThat(lookups.get(i)).as("accepted lookup %d", i)
            .succeedsWithin(Duration.ofSeconds(10)).isEqualTo("v" + i);
      }
      assertThat(cache.get("id-199")).as("the queue drained: loads start again").isEqualTo("v199");
    }
  }

  @Test
  void aQueueOfNoLoadIsRefusedNamingTheSetting() {
    assertThatThrownBy(() -> WarmGate.newBuilder(String.class, new CountingOrigin()).loaderQueue(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("loaderQueue must be at least 1, got 0");
  }
}
