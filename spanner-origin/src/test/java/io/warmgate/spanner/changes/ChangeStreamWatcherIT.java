package io.warmgate.spanner.changes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Mutation;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.agent.l2.ValkeyEndpoint;
import io.warmgate.spanner.Items;
import io.warmgate.testing.RedisExtension;
import io.warmgate.testing.SpannerEmulatorExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The change-stream watcher on the real Spanner emulator (which serves change streams: the one of
 * Cloud SDK 528.0.0 here) and a real redis-server: two pods cache item summaries with L1 and L2
 * TTLs of minutes, so only an invalidation makes them see a change within the test; each runs a
 * watcher, and the one holding the lock reads the stream.
 */
class ChangeStreamWatcherIT {

  @RegisterExtension
  static final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();
  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  /** What the pods must serve within this of the commit. */
  private static final Duration BOUND = Duration.ofSeconds(2);
  private static final String STREAM = "ItemChanges";

  private final List<AutoCloseable> running = new ArrayList<>();

  @BeforeAll
  static void schema() throws Exception {
    Items.create(spanner);
    spanner.spanner().getDatabaseAdminClient().updateDatabaseDdl(spanner.instanceId(),
        spanner.databaseId(), List.of("CREATE CHANGE STREAM " + STREAM + " FOR Items"), null)
        .get(60, TimeUnit.SECONDS);
    Items.seed(spanner.databaseClient(), 20);
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = running.size() - 1; i >= 0; i--) {
      running.get(i).close();
    }
  }

  private TieredCache<Items.Summary> pod(String name) {
    TieredCache<Items.Summary> cache = WarmGate.newBuilder(Items.Summary.class,
            Items.summaries(spanner.databaseClient(), Duration.ofSeconds(5)))
        .cacheName("items")
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

  private ChangeStreamWatcher watcher(TieredCache<?> cache, String pod) {
    ChangeStreamWatcher watcher = ChangeStreamWatcher.builder(spanner.databaseClient(), STREAM)
        .cache(cache)
        .valkey(ValkeyEndpoint.standalone(redis.uri()))
        .podName(pod)
        .mapTable("Items", ChangeMapper.keyColumn("ItemId"))
        .heartbeat(Duration.ofMillis(500))
        .start();
    running.add(watcher);
    return watcher;
  }

  private static void rename(DatabaseClient db, String id, String name) {
    db.write(List.of(Mutation.newUpdateBuilder("Items").set("ItemId").to(id)
        .set("Name").to(name).build()));
  }

  @Test
  void updatesInsertsAndDeletesReachEveryPodWithinTheBound() {
    TieredCache<Items.Summary> a = pod("pod-a");
    TieredCache<Items.Summary> b = pod("pod-b");
    ChangeStreamWatcher wa = watcher(a, "pod-a");
    ChangeStreamWatcher wb = watcher(b, "pod-b");
    await().atMost(Duration.ofSeconds(10)).until(() -> wa.isLeading() || wb.isLeading());
    assertThat(wa.isLeading() && wb.isLeading()).as("one reader").isFalse();
    String id = Items.id(1);
    String gone = Items.id(2);
    String fresh = Items.id(99);
    for (TieredCache<Items.Summary> pod : List.of(a, b)) {
      assertThat(pod.get(id).name()).isEqualTo(Items.name(1));
      assertThat(pod.get(gone)).isNotNull();
      assertThat(pod.get(fresh)).as("not there yet: cached as not found").isNull();
    }
    // The reader starts from the time it started: give its first query a moment to begin.
    sleepMillis(1_500);

    DatabaseClient db = spanner.databaseClient();
    long start = System.nanoTime();
    rename(db, id, "renamed");
    db.write(List.of(Mutation.delete("Items", com.google.cloud.spanner.Key.of(gone))));
    db.write(List.of(Mutation.newInsertBuilder("Items").set("ItemId").to(fresh)
        .set("Name").to("new item").set("PriceMicros").to(1L).set("Available").to(true)
        .set("UpdatedAt").to(com.google.cloud.Timestamp.now()).build()));
    await().atMost(BOUND.plusSeconds(1)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
      for (TieredCache<Items.Summary> pod : List.of(a, b)) {
        assertThat(pod.get(id).name()).isEqualTo("renamed");
        assertThat(pod.get(gone)).isNull();
        assertThat(pod.get(fresh)).isNotNull();
      }
    });
    System.out.printf("update, delete and insert served by both pods %d ms after the first "
        + "commit%n", (System.nanoTime() - start) / 1_000_000);
  }

  @Test
  void aReaderThatStopsIsReplacedAndNoChangeMadeMeanwhileIsLost() {
    TieredCache<Items.Summary> a = pod("pod-a");
    TieredCache<Items.Summary> b = pod("pod-b");
    ChangeStreamWatcher first = watcher(a, "pod-a");
    await().atMost(Duration.ofSeconds(10)).until(first::isLeading);
    sleepMillis(1_500);
    String id = Items.id(3);
    assertThat(b.get(id).name()).isEqualTo(Items.name(3));

    // The reader stops (its watermark saved, its lock released); the row changes while no pod
    // reads the stream; then another pod's watcher starts and must catch up from the watermark.
    first.close();
    running.remove(first);
    rename(spanner.databaseClient(), id, "changed while nobody read");
    sleepMillis(1_000);
    assertThat(b.get(id).name()).as("no reader: still cached").isEqualTo(Items.name(3));
    ChangeStreamWatcher second = watcher(b, "pod-b");
    await().atMost(Duration.ofSeconds(10)).until(second::isLeading);
    await().atMost(BOUND.plusSeconds(3)).untilAsserted(() ->
        assertThat(b.get(id).name()).isEqualTo("changed while nobody read"));
  }

  @Test
  void badSettingsAreRefusedNamingTheFix() {
    assertThatThrownBy(() -> ChangeStreamWatcher.builder(spanner.databaseClient(), "bad-name"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'bad-name'")
        .hasMessageContaining("CREATE CHANGE STREAM");
    assertThatThrownBy(() -> ChangeStreamWatcher.builder(spanner.databaseClient(), STREAM).start())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("cache(...)");
    assertThatThrownBy(() -> ChangeStreamWatcher.builder(spanner.databaseClient(), STREAM)
        .heartbeat(Duration.ofMillis(10)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("100 ms to 5 min");
  }

  private static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
