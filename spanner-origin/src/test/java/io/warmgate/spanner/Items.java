package io.warmgate.spanner;

import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Value;
import io.warmgate.testing.SpannerEmulatorExtension;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A test table with a column of every common Spanner type, created next to the example schema,
 * and deterministic rows: item {@code n} (1-based) has id {@link #id(int) item-00000n}.
 */
public final class Items {

  /** The table: one row per item. */
  public static final String DDL = """
      CREATE TABLE Items (
        ItemId      STRING(64) NOT NULL,
        Name        STRING(MAX) NOT NULL,
        PriceMicros INT64 NOT NULL,
        Price       NUMERIC,
        Rating      FLOAT64,
        Available   BOOL NOT NULL,
        Tags        ARRAY<STRING(MAX)>,
        Attributes  JSON,
        Launched    DATE,
        UpdatedAt   TIMESTAMP NOT NULL,
        Thumbnail   BYTES(MAX),
      ) PRIMARY KEY (ItemId)""";

  /** Reads a batch of items with every column. */
  public static final String QUERY = "SELECT * FROM Items WHERE ItemId IN UNNEST(@ids)";

  /** What the outage test caches: a small value of an item. */
  public record Summary(String itemId, String name, long priceMicros) {}

  private Items() {
  }

  /** Adds the table to the emulator's default database unless it is there already. */
  public static void create(SpannerEmulatorExtension spanner) {
    try (ResultSet rows = spanner.databaseClient().singleUse().executeQuery(Statement.of(
        "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'Items'"))) {
      rows.next();
      if (rows.getLong(0) > 0) {
        return;
      }
    }
    try {
      spanner.spanner().getDatabaseAdminClient()
          .updateDatabaseDdl(spanner.instanceId(), spanner.databaseId(), List.of(DDL), null)
          .get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create the Items table", e);
    }
  }

  /** Writes items {@code 1..count} and returns their ids in order. */
  public static List<String> seed(DatabaseClient client, int count) {
    List<Mutation> rows = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (int n = 1; n <= count; n++) {
      ids.add(id(n));
      rows.add(Mutation.newInsertOrUpdateBuilder("Items")
          .set("ItemId").to(id(n))
          .set("Name").to(name(n))
          .set("PriceMicros").to(priceMicros(n))
          .set("Price").to(n % 3 == 0 ? null : new BigDecimal(n + ".25"))
          .set("Rating").to(n % 4 == 0 ? null : n % 5 + 0.5)
          .set("Available").to(n % 2 == 0)
          .set("Tags").toStringArray(n % 5 == 0 ? null : tags(n))
          .set("Attributes").to(Value.json("{\"color\":\"c" + n % 3 + "\",\"sizes\":[" + n + "," + (n + 1) + "]}"))
          .set("Launched").to(Date.fromYearMonthDay(2026, 1, 1 + n % 28))
          .set("UpdatedAt").to(Timestamp.ofTimeSecondsAndNanos(1_767_225_600L + n, 123_456_000))
          .set("Thumbnail").to(ByteArray.copyFrom(new byte[] {(byte) n, 0, (byte) 255}))
          .build());
      if (rows.size() == 500) {
        client.write(rows);
        rows = new ArrayList<>();
      }
    }
    if (!rows.isEmpty()) {
      client.write(rows);
    }
    return ids;
  }

  /** The id of item {@code n}: {@code item-} and six digits. */
  public static String id(int n) {
    return String.format("item-%06d", n);
  }

  /** The name of item {@code n}. */
  public static String name(int n) {
    return "Item " + n;
  }

  /** The price of item {@code n} in micros. */
  public static long priceMicros(int n) {
    return n * 10_000L;
  }

  /** The tags of item {@code n} (none, NULL, for every fifth). */
  public static List<String> tags(int n) {
    return List.of("all", "t" + n % 3);
  }

  /** An origin of {@link Summary summaries}, mapped row by row. */
  public static SpannerOrigin<Summary> summaries(DatabaseClient client, java.time.Duration timeout) {
    return SpannerOrigin.builder(client)
        .query("SELECT ItemId, Name, PriceMicros FROM Items WHERE ItemId IN UNNEST(@ids)")
        .idColumn("ItemId")
        .timeout(timeout)
        .mapRows(row -> new Summary(row.getString("ItemId"), row.getString("Name"),
            row.getLong("PriceMicros")));
  }
}
