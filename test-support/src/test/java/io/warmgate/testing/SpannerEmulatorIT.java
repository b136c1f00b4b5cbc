package io.warmgate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.Value;
import io.grpc.Context;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SpannerEmulatorIT {

  @RegisterExtension
  static final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();

  private static String dealQuery;

  @BeforeAll
  static void readDealQuery() throws IOException {
    dealQuery = Files.readString(WarmgatePaths.repoDir().resolve("examples/spanner/deal-query.sql"));
  }

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
  void dealQueryReturnsSeveralDealsWithTheirAdsAndTargetingInOneRoundTrip() {
    DatabaseClient db = spanner.createDatabase("deal-query");
    DealSeeder.seed(db, 12);

    Map<String, List<Struct>> deals = queryDeals(db, List.of("deal-000001", "deal-000004", "deal-000011", "missing"));

    assertThat(deals).containsOnlyKeys("deal-000001", "deal-000004", "deal-000011");
    for (int n : new int[] {1, 4, 11}) {
      List<Struct> rows = deals.get(DealSeeder.dealId(n));
      Struct deal = rows.get(0);
      assertThat(deal.getString("AdvertiserId")).isEqualTo(DealSeeder.advertiserId(n));
      assertThat(deal.getString("AdvertiserName")).isEqualTo("Advertiser " + (n % 100));
      assertThat(deal.getString("Status")).isEqualTo(DealSeeder.status(n));
      assertThat(deal.getLong("FloorPriceMicros")).isEqualTo(DealSeeder.floorPriceMicros(n));
      assertThat(deal.isNull("UpdatedAt")).isFalse();
      // One row per (ad, targeting rule) pair: the JOIN of deals × ads × targeting.
      assertThat(rows).hasSize(DealSeeder.adCount(n) * DealSeeder.targetingCount(n));
      assertThat(rows.stream().map(r -> r.getString("AdId")).distinct()).hasSize(DealSeeder.adCount(n));
      assertThat(rows.stream().map(r -> r.getString("Dimension") + "=" + r.getString("Value")).distinct())
          .hasSize(DealSeeder.targetingCount(n));
    }
    Struct firstAd = deals.get("deal-000004").get(0);
    assertThat(firstAd.getString("AdId")).isEqualTo("ad-000004-1");
    assertThat(firstAd.getString("CreativeUrl")).endsWith("/deal-000004/1.png");
    assertThat(deals.get("deal-000001").get(0).getString("Dimension")).isEqualTo("geo");
  }

  @Test
  void seedSqlHoldsTheSameDealsAsTheSeeder() throws IOException {
    DatabaseClient fromSql = spanner.createDatabase("seed-sql");
    DatabaseClient fromSeeder = spanner.createDatabase("seed-java");
    List<Statement> inserts = SpannerEmulator.splitStatements(
            Files.readString(WarmgatePaths.repoDir().resolve("examples/spanner/seed.sql")))
        .stream().map(Statement::of).toList();
    fromSql.readWriteTransaction().run(tx -> tx.batchUpdate(inserts));
    DealSeeder.seed(fromSeeder, 3);

    List<String> ids = List.of("deal-000001", "deal-000002", "deal-000003");
    Map<String, List<Struct>> expected = queryDeals(fromSeeder, ids);
    Map<String, List<Struct>> actual = queryDeals(fromSql, ids);

    assertThat(actual).containsOnlyKeys(ids);
    for (String id : ids) {
      assertThat(actual.get(id).stream().map(SpannerEmulatorIT::withoutUpdatedAt).toList()).as(id)
          .isEqualTo(expected.get(id).stream().map(SpannerEmulatorIT::withoutUpdatedAt).toList());
    }
  }

  private static Map<String, Value> withoutUpdatedAt(Struct deal) {
    Map<String, Value> columns = new LinkedHashMap<>();
    for (int i = 0; i < deal.getColumnCount(); i++) {
      String name = deal.getType().getStructFields().get(i).getName();
      if (!name.equals("UpdatedAt")) {
        columns.put(name, deal.getValue(i));
      }
    }
    return columns;
  }

  @Test
  void seedsTenThousandDealsInBatches() {
    DatabaseClient db = spanner.createDatabase("ten-thousand");

    List<String> ids = DealSeeder.seed(db, 10_000);

    assertThat(ids).hasSize(10_000).startsWith("deal-000001").endsWith("deal-010000");
    assertThat(count(db, "Deals")).isEqualTo(10_000);
    assertThat(count(db, "DealAds")).isEqualTo(25_000);
    assertThat(count(db, "DealTargeting"))
        .isEqualTo(IntStream.rangeClosed(1, 10_000).map(DealSeeder::targetingCount).sum());
    assertThat(count(db, "Advertisers")).isEqualTo(100);
  }

  @Test
  void createdDatabasesAreIsolated() {
    DatabaseClient a = spanner.createDatabase("iso-a");
    DatabaseClient b = spanner.createDatabase("iso-b");

    DealSeeder.seed(a, 3);

    assertThat(count(a, "Deals")).isEqualTo(3);
    assertThat(count(b, "Deals")).isZero();
    assertThatThrownBy(() -> spanner.createDatabase("iso-a"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("iso-a");
  }

  @Test
  void stopIsAnOutageAndStartRecreatesTheSchemaOnTheSamePort() {
    String host = spanner.emulatorHost();
    DatabaseClient db = spanner.databaseClient();
    DealSeeder.seed(db, 2);

    spanner.stop();

    assertThat(spanner.isRunning()).isFalse();
    assertThatThrownBy(() -> withDeadline(Duration.ofSeconds(1), () -> count(db, "Deals")))
        .isInstanceOf(SpannerException.class);

    spanner.start();

    assertThat(spanner.emulatorHost()).isEqualTo(host);
    assertThat(count(db, "Deals")).as("client from before the outage; data gone, schema back").isZero();
    DealSeeder.seed(db, 1);
    assertThat(queryDeals(db, List.of("deal-000001"))).containsOnlyKeys("deal-000001");
  }

  /** The query's rows by deal, in order. */
  private static Map<String, List<Struct>> queryDeals(DatabaseClient db, List<String> ids) {
    Map<String, List<Struct>> deals = new LinkedHashMap<>();
    Statement query = Statement.newBuilder(dealQuery).bind("ids").toStringArray(ids).build();
    try (ResultSet rows = db.singleUse().executeQuery(query)) {
      while (rows.next()) {
        deals.computeIfAbsent(rows.getString("DealId"), id -> new ArrayList<>())
            .add(rows.getCurrentRowAsStruct());
      }
    }
    return deals;
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

  private static long count(DatabaseClient db, String table) {
    try (ResultSet rows = db.singleUse().executeQuery(Statement.of("SELECT COUNT(*) FROM " + table))) {
      rows.next();
      return rows.getLong(0);
    }
  }
}
