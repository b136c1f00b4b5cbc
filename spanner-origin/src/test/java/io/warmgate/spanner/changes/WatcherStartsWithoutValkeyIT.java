package io.warmgate.spanner.changes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.spanner.Items;
import io.warmgate.testing.RedisServer;
import io.warmgate.testing.SpannerEmulatorExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * An application starts while its Valkey cannot be reached, as it does without a watcher: the
 * watcher's start returns at once, and it takes the reader lock once Valkey answers (real
 * redis-server stopped and started again on its port, real Spanner emulator).
 */
class WatcherStartsWithoutValkeyIT {

  @RegisterExtension
  static final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();

  @Test
  void startReturnsWhileValkeyIsDownAndTheWatcherLeadsOnceItIsUp() throws Exception {
    Items.create(spanner);
    spanner.spanner().getDatabaseAdminClient().updateDatabaseDdl(spanner.instanceId(),
        spanner.databaseId(), List.of("CREATE CHANGE STREAM Late FOR Items"), null)
        .get(60, TimeUnit.SECONDS);
    Logger watcherLog = (Logger) LoggerFactory.getLogger(ChangeStreamWatcher.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    List<ILoggingEvent> unreachable = new CopyOnWriteArrayList<>();
    appender.list = unreachable;
    appender.start();
    watcherLog.addAppender(appender);
    try (RedisServer redis = RedisServer.create()) {
      redis.start();
      redis.stop(); // its port is known now, and nothing listens on it
      try (TieredCache<Items.Summary> cache = WarmGate.newBuilder(Items.Summary.class,
              Items.summaries(spanner.databaseClient(), Duration.ofSeconds(5)))
          .cacheName("items")
          .valkeyUri(redis.uri())
          .meterRegistry(new SimpleMeterRegistry())
          .fleetServices(true)
          .build()) {
        long start = System.nanoTime();
        try (ChangeStreamWatcher watcher = ChangeStreamWatcher.builder(spanner.databaseClient(), "Late")
            .cache(cache)
            .valkey(ValkeyEndpoint.standalone(redis.uri()))
            .mapTable("Items", ChangeMapper.keyColumn("ItemId"))
            .start()) {
          assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
          // Two turns of the lock timer found Valkey unreachable: the first one is over.
          await("two attempts to reach Valkey").atMost(Duration.ofSeconds(
                  ChangeStreamWatcher.RENEW_SECONDS * 3L))
              .until(() -> unreachable.stream().filter(e -> e.getFormattedMessage()
                  .contains("cannot reach Valkey at")).count() >= 2);
          assertThat(watcher.isLeading()).as("no lock without Valkey").isFalse();

          redis.start();
          await().atMost(Duration.ofSeconds(ChangeStreamWatcher.RENEW_SECONDS * 3L))
              .until(watcher::isLeading);
        }
      }
    } finally {
      watcherLog.detachAppender(appender);
    }
  }
}
