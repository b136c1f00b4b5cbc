package io.warmgate.spanner.changes;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.spanner.Items;
import java.io.IOException;
import java.time.Duration;

/**
 * A pod running a change-stream watcher, in a JVM of its own so that a test can kill it with
 * SIGKILL (no {@code close()}, no lock release, no last watermark save). It builds an item
 * summary cache with fleet services and a watcher of the {@code Items} table, as
 * {@link ChangeStreamWatcherIT} does, prints {@value #LEADING} once the watcher holds the lock,
 * and runs until it is killed or its standard input closes (the test JVM is gone).
 *
 * <p>Arguments: emulator host, project, instance, database, Valkey URI, pod name, change
 * stream, heartbeat in milliseconds.
 */
public final class WatcherProcessMain {

  /** The line printed once the watcher reads the stream. */
  public static final String LEADING = "watcher leading";

  private WatcherProcessMain() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 8) {
      System.err.println("usage: WatcherProcessMain <emulator host> <project> <instance> "
          + "<database> <valkey uri> <pod name> <change stream> <heartbeat ms>");
      System.exit(2);
    }
    Spanner spanner = SpannerOptions.newBuilder()
        .setProjectId(args[1])
        .setEmulatorHost(args[0])
        .setCredentials(NoCredentials.getInstance())
        .build()
        .getService();
    DatabaseClient database = spanner.getDatabaseClient(DatabaseId.of(args[1], args[2], args[3]));
    TieredCache<Items.Summary> cache = WarmGate.newBuilder(Items.Summary.class,
            Items.summaries(database, Duration.ofSeconds(5)))
        .cacheName("items")
        .valkeyUri(args[4])
        .podName(args[5])
        .meterRegistry(new SimpleMeterRegistry())
        .l1Ttl(Duration.ofMinutes(1))
        .l2Ttl(Duration.ofMinutes(4))
        .lockTtl(Duration.ofSeconds(1))
        .fleetServices(true)
        .build();
    ChangeStreamWatcher watcher = ChangeStreamWatcher.builder(database, args[6])
        .cache(cache)
        .valkey(ValkeyEndpoint.standalone(args[4]))
        .podName(args[5])
        .mapTable("Items", ChangeMapper.keyColumn("ItemId"))
        .heartbeat(Duration.ofMillis(Long.parseLong(args[7])))
        .start();
    Thread orphanGuard = new Thread(() -> {
      try {
        while (System.in.read() >= 0) {
          // the test JVM writes nothing; end of input means it is gone
        }
      } catch (IOException e) {
        // the same: nobody is left to kill this process
      }
      Runtime.getRuntime().halt(3);
    }, "orphan-guard");
    orphanGuard.setDaemon(true);
    orphanGuard.start();
    while (!watcher.isLeading()) {
      Thread.sleep(50);
    }
    System.out.println(LEADING);
    System.out.flush();
    Thread.currentThread().join(); // until SIGKILL
  }
}
