package io.warmgate.bench.freshness;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.google.cloud.spanner.DatabaseClient;
import io.warmgate.bench.common.Percentiles;
import io.warmgate.bench.common.Summary;
import io.warmgate.example.deal.DealChanges;
import io.warmgate.example.deal.DealSeeder;
import io.warmgate.testing.RedisServer;
import io.warmgate.testing.SpannerEmulator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Staleness after a write: K pods serve Zipf lookups of Deals while changes are committed to the
 * tables of the Deal JOIN; a change stream watcher turns each into an invalidation, and the
 * benchmark times commit → last pod serving the change, and counts the origin reads it caused.
 * Two fleets on the same real components (Spanner emulator, redis-server): warmgate, and the same
 * fleet without the fill lease, whose pods each read a changed deal themselves. The baseline of
 * staleness is the TTL bound a cache without invalidation has, a constant.
 */
public final class FreshnessBench {

  /** The bound without invalidation: L1 60 s + L2 4 min, the production TTLs the pods use. */
  static final Duration TTL_BOUND = Duration.ofSeconds(60).plus(Duration.ofMinutes(4));
  /** The bar on p99 staleness on this machine. */
  static final Duration P99_BAR = Duration.ofSeconds(2);

  private FreshnessBench() {}

  /**
   * Runs the benchmark, writes {@code freshness.json} and {@code freshness-summary.md} (not for a
   * quick run) into {@code out}, adds its rows to {@code summary} and returns its report section.
   */
  public static String run(Path out, boolean quick, Map<String, String> overrides,
      Summary summary) throws Exception {
    FreshnessParams params = quick ? FreshnessParams.quick() : FreshnessParams.full();
    for (Map.Entry<String, String> o : overrides.entrySet()) {
      params = params.with(o.getKey(), o.getValue());
    }
    System.out.println("freshness: " + params.describe());
    FreshnessRun.Result lease;
    FreshnessRun.Result noLease;
    try (RedisServer redis = RedisServer.create(); SpannerEmulator emulator = SpannerEmulator.create()) {
      redis.start();
      emulator.start();
      DatabaseClient db = emulator.databaseClient();
      List<String> ids = DealSeeder.seed(db, params.deals());
      emulator.spanner().getDatabaseAdminClient().updateDatabaseDdl(emulator.instanceId(),
          emulator.databaseId(), List.of(DealChanges.DDL), null).get(120, TimeUnit.SECONDS);
      Changes changes = new Changes(db, params);
      lease = measure("warmgate", db, redis, ids, params, changes, true);
      noLease = measure("without the fill lease", db, redis, ids, params, changes, false);
    }
    String section = render(params, lease, noLease);
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("params", params);
    json.put("results", List.of(lease, noLease));
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(out.resolve("freshness.json").toFile(), json);
    addRows(summary, params, lease, noLease);
    return section;
  }

  private static FreshnessRun.Result measure(String name, DatabaseClient db, RedisServer redis,
      List<String> ids, FreshnessParams params, Changes changes, boolean fillLease)
      throws Exception {
    redis.flushAll();
    try (FreshnessFleet fleet = FreshnessFleet.start(db, redis.uri(), params.agents(), fillLease)) {
      fleet.warm(ids);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!fleet.reading()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no pod's change stream watcher took the reader lock "
              + "within 30 s");
        }
        Thread.sleep(50);
      }
      // The reader starts at the time it took the lock: give its first query time to begin.
      Thread.sleep(2_000);
      System.out.println("freshness: " + name + ": " + params.changes() + " changes");
      return FreshnessRun.run(name, fleet, changes, params);
    }
  }

  private static String render(FreshnessParams p, FreshnessRun.Result lease,
      FreshnessRun.Result noLease) {
    StringBuilder md = new StringBuilder("## Freshness after a write\n\n");
    md.append(String.format(Locale.ROOT, "%s. Real Spanner emulator (change stream `%s` over the "
        + "four tables of the Deal JOIN) and redis-server; the pods are caches in this JVM with the "
        + "production TTLs (L1 60 s, L2 4 min), every deal in L2 and every L1 before the first "
        + "change, and a watcher each (one reads the stream). After each commit every pod looks the "
        + "changed deal up every %d ms until it serves the change. Staleness: the commit timestamp "
        + "to the last pod serving the change. Reads per change: origin reads of the changed deal "
        + "within %d s of its commit, for the whole fleet. Without invalidation the bound is the "
        + "TTLs: %d s (a constant).%n%n", p.describe(), DealChanges.STREAM,
        FreshnessRun.PROBE_MILLIS, FreshnessRun.READ_WINDOW.toSeconds(), TTL_BOUND.toSeconds()));
    md.append("| fleet | changes served by all pods | staleness p50 | p90 | p99 | max | origin reads "
        + "of the changed deal per change (mean / max) | all origin reads / changed ids | lookups "
        + "(failed) | lookups/s |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
        + "---: |\n");
    for (FreshnessRun.Result r : List.of(lease, noLease)) {
      long[] s = r.sortedStaleness();
      md.append(String.format(Locale.ROOT, "| %s | %d of %d | %s | %s | %s | %s | %.2f / %d | "
              + "%.2f (%d / %d) | %,d (%d) | %,.0f |%n", r.fleet(), r.changes().size(),
          r.changes().size() + r.missed(), ms(s, 0.50), ms(s, 0.90), ms(s, 0.99), ms(s, 1.0),
          r.readsPerChange(), r.maxReadsPerChange(),
          r.changedIds() == 0 ? 0.0 : r.originReads() / (double) r.changedIds(), r.originReads(),
          r.changedIds(), r.lookups(), r.failedLookups(), r.lookups() / r.seconds()));
    }
    md.append(String.format(Locale.ROOT, "%nChanges by kind (warmgate): %s. A renamed advertiser "
        + "changes every deal of it; only the ones looked up again are read again, hence fewer "
        + "reads than changed ids.%n%n", kinds(lease)));
    return md.toString();
  }

  private static String kinds(FreshnessRun.Result r) {
    Map<String, Integer> byKind = new LinkedHashMap<>();
    for (FreshnessRun.ChangeResult c : r.changes()) {
      byKind.merge(c.kind(), 1, Integer::sum);
    }
    StringBuilder text = new StringBuilder();
    byKind.forEach((k, n) -> text.append(text.length() == 0 ? "" : ", ").append(n).append(' ')
        .append(k));
    return text.toString();
  }

  private static void addRows(Summary summary, FreshnessParams p, FreshnessRun.Result lease,
      FreshnessRun.Result noLease) {
    long[] s = lease.sortedStaleness();
    summary.add(String.format(Locale.ROOT, "staleness after a write, commit → last of %d pods, "
            + "p50 / p99 (%d changes, %,d lookups/s)", p.agents(), lease.changes().size(),
            p.lookupsPerSecond()),
        "≤ " + TTL_BOUND.toSeconds() + " s (constant: the TTLs, no invalidation)",
        ms(s, 0.50) + " / " + ms(s, 0.99)
            + (lease.missed() > 0 ? " (" + lease.missed() + " not served in 30 s)" : ""),
        "p99 ≤ " + P99_BAR.toMillis() + " ms", lease.missed() == 0 && s.length > 0
            && Percentiles.nearestRank(s, 0.99) <= P99_BAR.toMillis());
    summary.add(String.format(Locale.ROOT, "origin reads of a changed deal per change, fleet of %d "
            + "(mean / max)", p.agents()),
        String.format(Locale.ROOT, "without the fill lease: %.2f / %d", noLease.readsPerChange(),
            noLease.maxReadsPerChange()),
        String.format(Locale.ROOT, "%.2f / %d", lease.readsPerChange(), lease.maxReadsPerChange()),
        "≤ 1 (mean)", lease.readsPerChange() <= 1);
  }

  private static String ms(long[] sorted, double q) {
    return sorted.length == 0 ? "n/a"
        : String.format(Locale.ROOT, "%,d ms", Percentiles.nearestRank(sorted, q));
  }
}
