package io.warmgate.example.deal;

import static org.awaitility.Awaitility.await;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.Mutation;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.Origin;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.spanner.changes.ChangeStreamWatcher;
import io.warmgate.testing.RedisExtension;
import io.warmgate.testing.SpannerEmulatorExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Inserts, updates and deletes in each table of the Deal JOIN reach every pod's reads through the
 * {@code DealChanges} change stream, on the real Spanner emulator and a real redis-server, during
 * a canary: two pods cache {@link Deal}s, one caches a new version of the type (another schema
 * key space). L1 and L2 live minutes, so only the invalidation makes a pod see a change in time.
 */
class DealChangesIT {

  @RegisterExtension
  static final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();
  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  /** The new version's type: what it keeps of a deal. */
  record DealV2(String dealId, String status, String advertiserName, int ads, int rules) {
    static DealV2 of(Deal d) {
      return new DealV2(d.dealId(), d.status().name(), d.advertiserName(), d.ads().size(),
          d.targeting().size());
    }
  }

  /** What every pod must serve within this of the commit. */
  private static final Duration BOUND = Duration.ofSeconds(2);

  private static final List<AutoCloseable> running = new ArrayList<>();
  private static final List<TieredCache<Deal>> oldPods = new ArrayList<>();
  private static TieredCache<DealV2> canary;
  private static long slowestMillis;

  @BeforeAll
  static void start() throws Exception {
    DatabaseClient db = spanner.databaseClient();
    DealSeeder.seed(db, 40);
    spanner.spanner().getDatabaseAdminClient().updateDatabaseDdl(spanner.instanceId(),
        spanner.databaseId(), List.of(DealChanges.DDL), null).get(60, TimeUnit.SECONDS);
    for (String pod : List.of("deals-old-1", "deals-old-2")) {
      oldPods.add(pod(pod, Deal.class, DealOrigin.spanner(db)));
    }
    Origin<Deal> deals = DealOrigin.spanner(db);
    canary = pod("deals-new-1", DealV2.class, ids -> {
      Map<String, DealV2> out = new LinkedHashMap<>();
      deals.loadAll(ids).forEach((id, deal) -> out.put(id, DealV2.of(deal)));
      return out;
    });
    ChangeStreamWatcher watcher = DealChanges.mapTables(
        ChangeStreamWatcher.builder(db, DealChanges.STREAM), db)
        .cache(oldPods.get(0))
        .valkey(ValkeyEndpoint.standalone(redis.uri()))
        .podName("deals-old-1")
        .heartbeat(Duration.ofMillis(500))
        .start();
    running.add(watcher);
    await().atMost(Duration.ofSeconds(10)).until(watcher::isLeading);
    awaitStreamRead();
  }

  @AfterAll
  static void stop() throws Exception {
    System.out.printf("slowest change seen by all 3 pods of 2 key spaces: %d ms after its commit%n",
        slowestMillis);
    for (int i = running.size() - 1; i >= 0; i--) {
      running.get(i).close();
    }
  }

  /**
   * Waits until the watcher's queries of the stream run, so that a change committed afterwards is
   * read: the watermark its reader saves every second in {@code {wg:deals}:changes:<stream>} moves
   * past the first value seen, which only a record of the stream (a heartbeat at the least) does.
   */
  private static void awaitStreamRead() {
    String key = "{wg:deals}:changes:" + DealChanges.STREAM;
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      Timestamp first = await(key + " watermark saved").atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> watermark(connection.sync().hget(key, "watermark")), Objects::nonNull);
      await(key + " watermark advanced").atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> watermark(connection.sync().hget(key, "watermark")),
              w -> w != null && w.compareTo(first) > 0);
    } finally {
      client.shutdown();
    }
  }

  private static Timestamp watermark(String saved) {
    return saved == null ? null : Timestamp.parseTimestamp(saved);
  }

  private static <V> TieredCache<V> pod(String name, Class<V> type, Origin<V> origin) {
    TieredCache<V> cache = WarmGate.newBuilder(type, origin)
        .cacheName("deals")
        .valkeyUri(redis.uri())
        .podName(name)
        .meterRegistry(new SimpleMeterRegistry())
        .l1Ttl(Duration.ofMinutes(1))
        .l2Ttl(Duration.ofMinutes(4))
        .lockTtl(Duration.ofSeconds(1))
        .fleetServices(true)
        .build();
    running.add(cache);
    return cache;
  }

  /**
   * Reads {@code id} in every pod (so each caches it), applies {@code change}, and waits until
   * every pod serves what {@code oldSees} and {@code newSees} expect.
   */
  private static void change(String id, Runnable change, Predicate<Deal> oldSees,
      Predicate<DealV2> newSees) {
    oldPods.forEach(pod -> pod.get(id));
    canary.get(id);
    long start = System.nanoTime();
    change.run();
    await().atMost(BOUND).pollInterval(Duration.ofMillis(20)).until(() ->
        oldPods.stream().allMatch(pod -> oldSees.test(pod.get(id)))
            && newSees.test(canary.get(id)));
    slowestMillis = Math.max(slowestMillis, (System.nanoTime() - start) / 1_000_000);
  }

  private static void write(Mutation... mutations) {
    spanner.databaseClient().write(List.of(mutations));
  }

  @Test
  void updatingADealRow() {
    String id = DealSeeder.dealId(1);
    change(id, () -> write(Mutation.newUpdateBuilder("Deals").set("DealId").to(id)
            .set("Status").to("PAUSED").build()),
        d -> d.status() == DealStatus.PAUSED, d -> d.status().equals("PAUSED"));
  }

  @Test
  void insertingAnAdAndDeletingTargetingRules() {
    String id = DealSeeder.dealId(2);
    int ads = DealSeeder.adCount(2);
    change(id, () -> write(Mutation.newInsertBuilder("DealAds").set("DealId").to(id)
            .set("AdId").to("ad-new").set("CreativeUrl").to("https://cdn.example.com/new.png")
            .set("Width").to(300L).set("Height").to(250L).set("Weight").to(1L).build()),
        d -> d.ads().size() == ads + 1, d -> d.ads() == ads + 1);
    change(id, () -> write(Mutation.delete("DealTargeting", KeySet.prefixRange(Key.of(id)))),
        d -> d.targeting().isEmpty(), d -> d.rules() == 0);
  }

  @Test
  void renamingAnAdvertiserReachesEveryDealOfIt() {
    // Deals 3 and 103... share advertiser 3; of 40 deals only deal 3 has it.
    String id = DealSeeder.dealId(3);
    String advertiser = DealSeeder.advertiserId(3);
    change(id, () -> write(Mutation.newUpdateBuilder("Advertisers").set("AdvertiserId")
            .to(advertiser).set("Name").to("Renamed Advertiser").build()),
        d -> d.advertiserName().equals("Renamed Advertiser"),
        d -> d.advertiserName().equals("Renamed Advertiser"));
  }

  @Test
  void deletingADealAndInsertingOne() {
    String gone = DealSeeder.dealId(4);
    change(gone, () -> write(Mutation.delete("Deals", Key.of(gone))),
        d -> d == null, d -> d == null);
    String added = "deal-900001";
    change(added, () -> write(
            Mutation.newInsertBuilder("Deals").set("DealId").to(added)
                .set("AdvertiserId").to(DealSeeder.advertiserId(1)).set("Name").to("New deal")
                .set("Status").to("ACTIVE").set("FloorPriceMicros").to(1L).set("Currency").to("USD")
                .set("UpdatedAt").to(com.google.cloud.spanner.Value.COMMIT_TIMESTAMP).build()),
        d -> d != null && d.name().equals("New deal"), d -> d != null);
  }
}
