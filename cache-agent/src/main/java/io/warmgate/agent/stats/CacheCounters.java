package io.warmgate.agent.stats;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;

/**
 * Reads a cache's cumulative counts from the Micrometer meters it registers (tag
 * {@code cache=<name>}), one per statistic of {@code {wg:<cache>}:stats:<hash>}:
 *
 * <table>
 *   <caption>statistic ← meter</caption>
 *   <tr><td>{@code l1Hits}</td><td>{@code warmgate.cache.gets{tier=l1,result=hit}}</td></tr>
 *   <tr><td>{@code l2Hits}</td><td>{@code warmgate.cache.gets{tier=l2,result=hit}}</td></tr>
 *   <tr><td>{@code misses}</td><td>{@code warmgate.cache.gets{tier=l2,result=miss}}: lookups that
 *       neither tier answered</td></tr>
 *   <tr><td>{@code originLoads}</td><td>{@code warmgate.origin.keys}: ids asked of the origin</td></tr>
 *   <tr><td>{@code originErrors}</td><td>{@code warmgate.origin.errors}: origin calls that failed</td></tr>
 *   <tr><td>{@code l2Writes}</td><td>{@code warmgate.l2.writes}</td></tr>
 *   <tr><td>{@code notFound}</td><td>{@code warmgate.origin.notfound}: ids the origin did not
 *       know</td></tr>
 * </table>
 *
 * A meter that is not (yet) registered reads as zero; a meter is looked up until found, then
 * kept. Two caches of one name in one registry share their meters, so their counts add up.
 */
final class CacheCounters {

  /** A statistic, its field name in Valkey and the meter it is read from. */
  record Stat(String field, String meter, String... tags) {}

  static final List<Stat> STATS = List.of(
      new Stat("l1Hits", "warmgate.cache.gets", "tier", "l1", "result", "hit"),
      new Stat("l2Hits", "warmgate.cache.gets", "tier", "l2", "result", "hit"),
      new Stat("misses", "warmgate.cache.gets", "tier", "l2", "result", "miss"),
      new Stat("originLoads", "warmgate.origin.keys"),
      new Stat("originErrors", "warmgate.origin.errors"),
      new Stat("l2Writes", "warmgate.l2.writes"),
      new Stat("notFound", "warmgate.origin.notfound"));

  private final MeterRegistry registry;
  private final String cacheName;
  private final Counter[] counters = new Counter[STATS.size()];

  CacheCounters(MeterRegistry registry, String cacheName) {
    this.registry = registry;
    this.cacheName = cacheName;
  }

  /** Returns the current cumulative count of each of {@link #STATS}, in order. */
  long[] read() {
    long[] out = new long[counters.length];
    for (int i = 0; i < counters.length; i++) {
      Counter c = counters[i];
      if (c == null) {
        Stat stat = STATS.get(i);
        c = registry.find(stat.meter()).tag("cache", cacheName).tags(stat.tags()).counter();
        counters[i] = c;
      }
      out[i] = c == null ? 0 : (long) c.count();
    }
    return out;
  }
}
