package io.warmgate.spanner.changes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Mutation;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.spanner.Items;
import io.warmgate.testing.RedisExtension;
import io.warmgate.testing.SpannerEmulatorExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The change-stream watcher on the real Spanner emulator (which serves change streams: the one of
 * Cloud SDK 528.0.0 here) and a real redis-server: two pods cache item summaries with L1 and L2
 * TTLs of minutes, so only an invalidation makes them see a change within the test; each runs a
 * watcher, and the one holding the lock reads the stream. One case runs the first reader in a JVM
 * of its own ({@link WatcherProcessMain}) and kills it with SIGKILL, as a pod dies.
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
    return watcher(cache, pod, redis.uri());
  }

  /** A watcher that reaches Valkey at {@code valkeyUri} (its cache reaches it directly). */
  private ChangeStreamWatcher watcher(TieredCache<?> cache, String pod, String valkeyUri) {
    return watcher(cache, pod, valkeyUri, new SimpleMeterRegistry());
  }

  private ChangeStreamWatcher watcher(TieredCache<?> cache, String pod, String valkeyUri,
      SimpleMeterRegistry meters) {
    ChangeStreamWatcher watcher = ChangeStreamWatcher.builder(spanner.databaseClient(), STREAM)
        .cache(cache)
        .valkey(ValkeyEndpoint.standalone(valkeyUri))
        .meterRegistry(meters)
        .podName(pod)
        .mapTable("Items", ChangeMapper.keyColumn("ItemId"))
        .heartbeat(Duration.ofMillis(500))
        .start();
    running.add(watcher);
    return watcher;
  }

  /** Renames item {@code id} and returns the commit timestamp. */
  private static Timestamp rename(DatabaseClient db, String id, String name) {
    return db.write(List.of(Mutation.newUpdateBuilder("Items").set("ItemId").to(id)
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
    // The reader starts from the time it started: changes from once its queries run are read.
    ChangeStreamProgress.awaitReading(redis.uri(), "items", STREAM, Duration.ofSeconds(10));

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
    ChangeStreamProgress.awaitReading(redis.uri(), "items", STREAM, Duration.ofSeconds(10));
    String id = Items.id(3);
    assertThat(b.get(id).name()).isEqualTo(Items.name(3));

    // The reader stops (its watermark saved, its lock released); the row changes while no pod
    // reads the stream; then another pod's watcher starts and must catch up from the watermark.
    first.close();
    running.remove(first);
    rename(spanner.databaseClient(), id, "changed while nobody read");
    await("no reader: still cached").during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
        .until(() -> Items.name(3).equals(b.get(id).name()));
    ChangeStreamWatcher second = watcher(b, "pod-b");
    await().atMost(Duration.ofSeconds(10)).until(second::isLeading);
    await().atMost(BOUND.plusSeconds(3)).untilAsserted(() ->
        assertThat(b.get(id).name()).isEqualTo("changed while nobody read"));
  }

  @Test
  void aReaderKilledWithoutStoppingIsReplacedOnceItsLockLapsesAndLosesNoChange() throws Exception {
    redis.flushAll(); // no watermark of an earlier test: the killed reader is the cache's first
    TieredCache<Items.Summary> b = pod("pod-b");
    TieredCache<Items.Summary> c = pod("pod-c");
    KeySpace keys = new KeySpace("items", b.schemaHash());
    String stateKey = keys.changesKey(STREAM);
    String lockKey = stateKey + ":lock";
    // Items no other test changes: 11 to see the first reader work, then two changed just
    // before it is killed and two while no reader runs.
    List<Integer> justBefore = List.of(12, 13);
    List<Integer> duringOutage = List.of(14, 15);
    for (TieredCache<Items.Summary> pod : List.of(b, c)) {
      for (int n = 11; n <= 15; n++) {
        assertThat(pod.get(Items.id(n)).name()).isEqualTo(Items.name(n));
      }
    }
    DatabaseClient db = spanner.databaseClient();
    RedisClient client = RedisClient.create(redis.uri());
    try (WatcherProcess first = WatcherProcess.start("pod-a");
        StatefulRedisConnection<String, String> raw = client.connect()) {
      var valkey = raw.sync();
      // The other JVM reads the stream and tells this JVM's pods.
      rename(db, Items.id(11), "seen by the first reader");
      await().atMost(BOUND.plusSeconds(3)).untilAsserted(() -> {
        assertThat(b.get(Items.id(11)).name()).isEqualTo("seen by the first reader");
        assertThat(c.get(Items.id(11)).name()).isEqualTo("seen by the first reader");
      });
      await().atMost(Duration.ofSeconds(5)).until(() -> valkey.hget(stateKey, "watermark") != null);

      for (int n : justBefore) {
        rename(db, Items.id(n), "changed just before the kill");
      }
      long killedAt = System.nanoTime();
      assertThat(first.kill()).as("killed by SIGKILL").isEqualTo(128 + 9);
      // Dead without a clean stop: the lock is still its own, the watermark its last save.
      long lockLeft = valkey.pttl(lockKey);
      long lapsesMillis = (System.nanoTime() - killedAt) / 1_000_000 + lockLeft;
      assertThat(lockLeft).as("lock left after the kill, ms")
          .isBetween(1L, ChangeStreamWatcher.LOCK_SECONDS * 1000L);
      assertThat(valkey.get(lockKey)).startsWith("pod-a/");
      Map<String, String> saved = valkey.hgetall(stateKey);
      assertThat(saved.get("owner")).startsWith("pod-a/");
      Timestamp savedMark = Timestamp.parseTimestamp(saved.get("watermark"));

      // While no reader runs, rows change; the pods still serve what they cached.
      List<Timestamp> outageCommits = new ArrayList<>();
      for (int n : duringOutage) {
        outageCommits.add(rename(db, Items.id(n), "changed while no reader ran"));
      }
      assertThat(outageCommits).allMatch(t -> t.compareTo(savedMark) > 0);
      assertThat(c.get(Items.id(14)).name()).isEqualTo(Items.name(14));

      ChangeStreamWatcher second = watcher(b, "pod-b");
      await().atMost(Duration.ofSeconds(ChangeStreamWatcher.LOCK_SECONDS
              + ChangeStreamWatcher.RENEW_SECONDS + 2L))
          .pollInterval(Duration.ofMillis(20)).until(second::isLeading);
      long takeoverMillis = (System.nanoTime() - killedAt) / 1_000_000;
      assertThat(valkey.get(lockKey)).startsWith("pod-b/");
      // Not before the dead reader's lock lapsed, and at the next attempt after it did (every
      // RENEW_SECONDS): seconds, not minutes, not at once.
      assertThat(takeoverMillis).isGreaterThanOrEqualTo(lapsesMillis)
          .isLessThanOrEqualTo(lapsesMillis + ChangeStreamWatcher.RENEW_SECONDS * 1000L + 1_000);
      System.out.printf("killed reader replaced %d ms after SIGKILL (its lock lapsed after %d "
          + "ms)%n", takeoverMillis, lapsesMillis);

      // The new reader resumed from the saved watermark, before the outage's commits: every
      // change reaches every pod (their L1 lives a minute, so nothing else could refresh them).
      await().atMost(BOUND.plusSeconds(3)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
        for (TieredCache<Items.Summary> pod : List.of(b, c)) {
          for (int n : justBefore) {
            assertThat(pod.get(Items.id(n)).name()).isEqualTo("changed just before the kill");
          }
          for (int n : duringOutage) {
            assertThat(pod.get(Items.id(n)).name()).isEqualTo("changed while no reader ran");
          }
        }
      });
      System.out.printf("changes made before and during the outage served by both pods %d ms "
          + "after the takeover%n", (System.nanoTime() - killedAt) / 1_000_000 - takeoverMillis);
      await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
          assertThat(valkey.hget(stateKey, "owner")).startsWith("pod-b/"));
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /**
   * A reader cut off from Valkey (a stand-in for the partition: a loopback forwarder that holds
   * its bytes) cannot renew its lock. It must stop reading before the lock lapses and another
   * pod takes over, so the stream is never read twice, and what it sent meanwhile, delivered
   * late, must not overwrite the new reader's watermark.
   */
  @Test
  void aReaderThatCannotRenewItsLockStopsBeforeItLapsesAndNeverOverwritesTheNextReadersWatermark()
      throws Exception {
    redis.flushAll();
    TieredCache<Items.Summary> a = pod("pod-a");
    TieredCache<Items.Summary> b = pod("pod-b");
    String stateKey = new KeySpace("items", a.schemaHash()).changesKey(STREAM);
    RedisClient client = RedisClient.create(redis.uri());
    try (StallingProxy link = new StallingProxy(redis.host(), redis.port());
        StatefulRedisConnection<String, String> raw = client.connect()) {
      var valkey = raw.sync();
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      ChangeStreamWatcher cutOff = watcher(a, "pod-a", link.uri(), meters);
      await().atMost(Duration.ofSeconds(10)).until(cutOff::isLeading);
      await().atMost(Duration.ofSeconds(5)).until(() -> valkey.hget(stateKey, "owner") != null);
      ChangeStreamWatcher next = watcher(b, "pod-b");

      link.stall();
      long stalledAt = System.nanoTime();
      // Its lock lapses at most LOCK_SECONDS after the stall (it was renewed before it at the
      // latest): it must have stopped reading by then.
      await().atMost(Duration.ofSeconds(ChangeStreamWatcher.LOCK_SECONDS))
          .pollInterval(Duration.ofMillis(50)).until(() -> !cutOff.isLeading());
      System.out.printf("reader cut off from Valkey stopped reading %d ms after the cut%n",
          (System.nanoTime() - stalledAt) / 1_000_000);
      await().atMost(Duration.ofSeconds(ChangeStreamWatcher.LOCK_SECONDS
          + ChangeStreamWatcher.RENEW_SECONDS + 2L)).until(next::isLeading);
      assertThat(cutOff.isLeading()).as("two readers at once").isFalse();
      await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
          assertThat(valkey.hget(stateKey, "owner")).startsWith("pod-b/"));
      assertThat(meters.counter("warmgate.changes.fenced", "cache", "items", "stream", STREAM)
          .count()).as("fencings counted, by its readers or its heartbeat").isEqualTo(1.0);

      link.resume(); // what it sent while cut off lands now, late
      for (int i = 0; i < 6; i++) {
        Thread.sleep(500);
        assertThat(valkey.hget(stateKey, "owner")).as("watermark owner after the link is back")
            .startsWith("pod-b/");
        assertThat(cutOff.isLeading()).isFalse();
      }
      String id = Items.id(16);
      assertThat(b.get(id).name()).isEqualTo(Items.name(16));
      rename(spanner.databaseClient(), id, "read by the new reader");
      await().atMost(BOUND.plusSeconds(1)).untilAsserted(() ->
          assertThat(b.get(id).name()).isEqualTo("read by the new reader"));
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /**
   * Valkey restarted without persistence (FLUSHALL here) loses the watermark: the reader can
   * only start again from now, and changes made while no reader ran are missed until the values'
   * TTLs. It must say so in the hash the operator reads, not resume silently; a cache's first
   * reader, which never had a watermark, reports no loss.
   */
  @Test
  void aWatermarkValkeyLostIsReportedInTheReadersHash() {
    redis.flushAll();
    TieredCache<Items.Summary> a = pod("pod-a");
    String stateKey = new KeySpace("items", a.schemaHash()).changesKey(STREAM);
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> raw = client.connect()) {
      var valkey = raw.sync();
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      ChangeStreamWatcher reader = watcher(a, "pod-a", redis.uri(), meters);
      await().atMost(Duration.ofSeconds(10)).until(reader::isLeading);
      await().atMost(Duration.ofSeconds(5)).until(() -> valkey.hget(stateKey, "watermark") != null);
      assertThat(valkey.hget(stateKey, "watermarkLostAt")).as("first reader: nothing lost")
          .isNull();

      long before = System.currentTimeMillis();
      valkey.flushall();
      await().atMost(Duration.ofSeconds(ChangeStreamWatcher.RENEW_SECONDS * 2L + 2))
          .until(() -> valkey.hget(stateKey, "watermarkLostAt") != null);
      Map<String, String> state = valkey.hgetall(stateKey);
      long lostAt = Long.parseLong(state.get("watermarkLostAt"));
      assertThat(lostAt).isBetween(before, System.currentTimeMillis());
      assertThat(Long.parseLong(state.get("watermarkLostUntil")))
          .as("until values cached before the loss have expired: lostAt + maxStaleness")
          .isEqualTo(lostAt + Duration.ofMinutes(5).toMillis());
      assertThat(state.get("owner")).startsWith("pod-a/");
      assertThat(reader.isLeading()).isTrue();
      assertThat(meters.counter("warmgate.changes.watermark.lost", "cache", "items", "stream",
          STREAM).count()).isEqualTo(1.0);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /**
   * A watcher in a JVM of its own ({@link WatcherProcessMain}) on this test's emulator and
   * redis-server, its output in {@code target/test-processes/watcher-<pod>.log}.
   */
  private static final class WatcherProcess implements AutoCloseable {

    private final Process process;
    private final Path log;

    private WatcherProcess(Process process, Path log) {
      this.process = process;
      this.log = log;
    }

    /** Starts it and returns once its watcher holds the lock. */
    static WatcherProcess start(String pod) throws Exception {
      Path log = Path.of("target", "test-processes", "watcher-" + pod + ".log").toAbsolutePath();
      Files.createDirectories(log.getParent());
      Files.deleteIfExists(log);
      ProcessBuilder builder = new ProcessBuilder(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx256m", "-XX:TieredStopAtLevel=1",
          "-cp", System.getProperty("java.class.path"),
          WatcherProcessMain.class.getName(),
          spanner.emulatorHost(), spanner.projectId(), spanner.instanceId(), spanner.databaseId(),
          redis.uri(), pod, STREAM, "500"))
          .redirectErrorStream(true)
          .redirectOutput(log.toFile());
      // Standard input stays a pipe held by this JVM: the child exits when this JVM is gone.
      WatcherProcess started = new WatcherProcess(builder.start(), log);
      try {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(() -> {
          if (!started.process.isAlive()) {
            throw new IllegalStateException("the watcher process exited with "
                + started.process.exitValue() + ":\n" + Files.readString(log));
          }
          return Files.readString(log).contains(WatcherProcessMain.LEADING);
        });
      } catch (RuntimeException e) {
        started.close();
        throw e;
      }
      return started;
    }

    /** Sends SIGKILL, waits for the process to be gone and returns its exit code. */
    int kill() throws InterruptedException {
      process.destroyForcibly();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the watcher process outlived SIGKILL by 30 s");
      }
      return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
      kill();
    }
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
}
