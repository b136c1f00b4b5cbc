package io.warmgate.agent;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** Reads the cache's meters in tests. */
public final class Meters {

  private Meters() {}

  /** The count of counter {@code name} with {@code tags} (key, value, ...), 0 if never registered. */
  public static long count(MeterRegistry registry, String name, String... tags) {
    Counter c = registry.find(name).tags(tags).counter();
    return c == null ? 0 : (long) c.count();
  }

  public static long originLoads(MeterRegistry registry) {
    return count(registry, "warmgate.origin.loads");
  }

  public static double gauge(MeterRegistry registry, String name) {
    return registry.get(name).gauge().value();
  }
}
