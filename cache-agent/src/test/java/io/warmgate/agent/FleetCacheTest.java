package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.warmgate.agent.hot.HotKeys;
import io.warmgate.agent.hot.Samples;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FleetCacheTest {

  private final CountingOrigin origin = new CountingOrigin().put("a", "A").put("b", "B");
  private final HotKeys hot = new HotKeys(1, 64, 100, Duration.ofMinutes(10));
  private final List<String> events = new ArrayList<>();

  private TieredCache<String> sampler() {
    DefaultTieredCache<String> cache = (DefaultTieredCache<String>) WarmGate.newBuilder(
        String.class, origin).cacheName("deals").build();
    return new FleetCache<>(cache, hot, ids -> events.add("fleet invalidated " + ids),
        () -> events.add("services stopped"));
  }

  @Test
  void recordsEveryKindOfLookupAndReturnsWhatTheCacheReturns() {
    try (TieredCache<String> cache = sampler()) {
      assertThat(cache.get("a")).isEqualTo("A");
      assertThat(cache.getAsync("b").join()).isEqualTo("B");
      assertThat(cache.getAll(List.of("a", "missing"))).isEqualTo(Map.of("a", "A"));
      assertThat(cache.getAllAsync(List.of("b")).join()).isEqualTo(Map.of("b", "B"));
      assertThat(cache.name()).isEqualTo("deals");
      assertThat(Samples.drain(hot)).isEqualTo(Map.of("a", 2, "b", 2, "missing", 1));
    }
  }

  @Test
  void singleUseIterablesReachTheCacheWhole() {
    try (TieredCache<String> cache = sampler()) {
      Iterator<String> ids = List.of("a", "b").iterator();
      Iterable<String> once = () -> ids;
      assertThat(cache.getAll(once)).isEqualTo(Map.of("a", "A", "b", "B"));
      assertThat(Samples.drain(hot)).isEqualTo(Map.of("a", 1, "b", 1));
    }
  }

  @Test
  void invalidArgumentsAreStillRefusedByTheCache() {
    try (TieredCache<String> cache = sampler()) {
      assertThatThrownBy(() -> cache.get(null)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> cache.getAll(null)).isInstanceOf(IllegalArgumentException.class);
      assertThat(Samples.drain(hot)).isEmpty();
    }
  }

  @Test
  void invalidationChecksTheIdsHandsThemToTheFleetOnceEachAndDropsThemFromL1() {
    try (TieredCache<String> cache = sampler()) {
      cache.get("a");
      origin.put("a", "A2");
      cache.invalidateAll(List.of("a", "a", "b"));
      assertThat(events).containsExactly("fleet invalidated [a, b]");
      assertThat(cache.get("a")).as("read again from the origin").isEqualTo("A2");
      assertThatThrownBy(() -> cache.invalidateAll(List.of("c", ""))).isInstanceOf(
          IllegalArgumentException.class);
      assertThat(events).as("nothing handed on for a call with a bad id").hasSize(1);
    }
  }

  @Test
  void l1IsDroppedEvenWhenTheFleetCannotBeTold() {
    DefaultTieredCache<String> inner = (DefaultTieredCache<String>) WarmGate.newBuilder(
        String.class, origin).cacheName("deals").build();
    try (TieredCache<String> cache = new FleetCache<>(inner, hot, ids -> {
      throw new IllegalStateException("Valkey is down");
    }, () -> { })) {
      cache.get("a");
      origin.put("a", "A2");
      assertThatThrownBy(() -> cache.invalidate("a")).hasMessage("Valkey is down");
      assertThat(cache.get("a")).isEqualTo("A2");
    }
  }

  @Test
  void closeStopsTheServicesOnceThenClosesTheCache() {
    TieredCache<String> cache = sampler();
    cache.close();
    cache.close();
    assertThat(events).containsExactly("services stopped");
    assertThatThrownBy(() -> cache.get("a")).isInstanceOf(IllegalStateException.class);
  }
}
