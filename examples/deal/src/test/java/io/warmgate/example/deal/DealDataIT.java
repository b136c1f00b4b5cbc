package io.warmgate.example.deal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.Value;
import io.warmgate.testing.SpannerEmulator;
import io.warmgate.testing.SpannerEmulatorExtension;
import io.warmgate.testing.WarmgatePaths;
import java.io.IOException;
import java.util.stream.IntStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The example data on the real emulator: the Deal query's raw rows, {@code seed.sql} against the
 * seeder, and a 10,000-deal seed.
 */
class DealDataIT {

  @RegisterExtension
  static final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();

  private static String dealQuery;

  @BeforeAll
  static void readDealQuery() throws IOException {
    dealQuery = Files.readString(WarmgatePaths.repoDir().resolve("examples/spanner/deal-query.sql"));
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
      assertThat(actual.get(id).stream().map(DealDataIT::withoutUpdatedAt).toList()).as(id)
          .isEqualTo(expected.get(id).stream().map(DealDataIT::withoutUpdatedAt).toList());
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

  private static long count(DatabaseClient db, String table) {
    try (ResultSet rows = db.singleUse().executeQuery(Statement.of("SELECT COUNT(*) FROM " + table))) {
      rows.next();
      return rows.getLong(0);
    }
  }
}
