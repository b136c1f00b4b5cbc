package io.warmgate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import io.grpc.Context;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The emulator's lifecycle: schema applied, databases isolated, an outage and a restart. */
class SpannerEmulatorIT {

  @RegisterExtension
  static final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();

  @Test
  void appliesTheExampleSchema() {
    List<String> tables = new ArrayList<>();
    try (ResultSet rows = spanner.databaseClient().singleUse().executeQuery(Statement.of(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = '' ORDER BY table_name"))) {
      while (rows.next()) {
        tables.add(rows.getString(0));
      }
    }

    assertThat(tables).containsExactly("Advertisers", "DealAds", "DealTargeting", "Deals");
    assertThat(spanner.emulatorHost()).startsWith("127.0.0.1:");
  }

  @Test
  void createdDatabasesAreIsolated() {
    DatabaseClient a = spanner.createDatabase("iso-a");
    DatabaseClient b = spanner.createDatabase("iso-b");

    writeAdvertisers(a, 3);

    assertThat(count(a, "Advertisers")).isEqualTo(3);
    assertThat(count(b, "Advertisers")).isZero();
    assertThatThrownBy(() -> spanner.createDatabase("iso-a"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("iso-a");
  }

  @Test
  void stopIsAnOutageAndStartRecreatesTheSchemaOnTheSamePort() {
    String host = spanner.emulatorHost();
    DatabaseClient db = spanner.databaseClient();
    writeAdvertisers(db, 2);

    spanner.stop();

    assertThat(spanner.isRunning()).isFalse();
    assertThatThrownBy(() -> withDeadline(Duration.ofSeconds(1), () -> count(db, "Advertisers")))
        .isInstanceOf(SpannerException.class);

    spanner.start();

    assertThat(spanner.emulatorHost()).isEqualTo(host);
    assertThat(count(db, "Advertisers")).as("client from before the outage; data gone, schema back")
        .isZero();
    writeAdvertisers(db, 1);
    assertThat(count(db, "Advertisers")).isEqualTo(1);
  }

  /** Spanner retries UNAVAILABLE until the call's deadline, so an outage is seen through one. */
  private static <T> T withDeadline(Duration deadline, Callable<T> call) throws Exception {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try {
      return Context.current().withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS, timer)
          .call(call);
    } finally {
      timer.shutdownNow();
    }
  }

  /** Writes advertisers adv-1..n (the example schema's smallest table). */
  private static void writeAdvertisers(DatabaseClient db, int n) {
    List<Mutation> rows = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      rows.add(Mutation.newInsertOrUpdateBuilder("Advertisers").set("AdvertiserId").to("adv-" + i)
          .set("Name").to("Advertiser " + i).build());
    }
    db.write(rows);
  }

  private static long count(DatabaseClient db, String table) {
    try (ResultSet rows = db.singleUse().executeQuery(Statement.of("SELECT COUNT(*) FROM " + table))) {
      rows.next();
      return rows.getLong(0);
    }
  }
}
