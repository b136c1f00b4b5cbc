package io.warmgate.example.deal;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Struct;
import io.warmgate.spanner.SpannerOrigin;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads {@link Deal}s from Cloud Spanner through a {@link SpannerOrigin}: one multi-table JOIN of
 * {@code Deals}, {@code Advertisers}, {@code DealAds} and {@code DealTargeting} per batch
 * ({@code examples/spanner/deal-query.sql}), each deal assembled from its rows (one per ad ×
 * targeting rule). The example of a {@link SpannerOrigin.Builder#mapRowGroups row-group mapping}.
 */
public final class DealOrigin {

  /**
   * The batched read; {@code @ids} is an {@code ARRAY<STRING>}. Packaged from
   * {@code examples/spanner/deal-query.sql}, the query the emulator tests run, so there is one copy.
   */
  public static final String QUERY = readQuery();

  private DealOrigin() {
  }

  /** Returns an origin reading through {@code client} with {@link SpannerOrigin#DEFAULT_TIMEOUT}. */
  public static SpannerOrigin<Deal> spanner(DatabaseClient client) {
    return spanner(client, SpannerOrigin.DEFAULT_TIMEOUT);
  }

  /**
   * Returns an origin reading through {@code client}, which the caller owns and closes; a batch
   * read fails with {@code DEADLINE_EXCEEDED} after {@code timeout}.
   *
   * @throws IllegalStateException if {@code timeout} is not positive
   */
  public static SpannerOrigin<Deal> spanner(DatabaseClient client, Duration timeout) {
    return SpannerOrigin.builder(client)
        .query(QUERY)
        .idColumn("DealId")
        .timeout(timeout)
        .mapRowGroups(DealOrigin::assemble);
  }

  /**
   * Builds a deal from its JOIN rows: the deal's own columns from the first row, ads and rules in
   * row order, once each; a deal without ads or rules has NULLs there.
   */
  static Deal assemble(List<Struct> rows) {
    Map<String, DealAd> ads = new LinkedHashMap<>();
    Map<String, DealTargeting> targeting = new LinkedHashMap<>();
    for (Struct row : rows) {
      if (!row.isNull("AdId")) {
        ads.putIfAbsent(row.getString("AdId"), new DealAd(row.getString("AdId"),
            row.getString("CreativeUrl"), row.getLong("Width"), row.getLong("Height"),
            row.getLong("Weight")));
      }
      if (!row.isNull("Dimension")) {
        String dimension = row.getString("Dimension");
        String value = row.getString("Value");
        targeting.putIfAbsent(dimension + "\u0000" + value,
            new DealTargeting(dimension, value, row.getBoolean("Exclude")));
      }
    }
    Struct head = rows.get(0);
    return new Deal(
        head.getString("DealId"),
        head.getString("AdvertiserId"),
        head.getString("AdvertiserName"),
        head.isNull("AdvertiserDomain") ? null : head.getString("AdvertiserDomain"),
        head.getString("Name"),
        DealStatus.valueOf(head.getString("Status")),
        head.getLong("FloorPriceMicros"),
        head.getString("Currency"),
        instant(head, "StartTime"),
        instant(head, "EndTime"),
        instant(head, "UpdatedAt"),
        List.copyOf(ads.values()),
        List.copyOf(targeting.values()));
  }

  private static Instant instant(Struct row, String column) {
    if (row.isNull(column)) {
      return null;
    }
    Timestamp t = row.getTimestamp(column);
    return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
  }

  private static String readQuery() {
    try (InputStream in = DealOrigin.class.getResourceAsStream("deal-query.sql")) {
      if (in == null) {
        throw new IllegalStateException("deal-query.sql is missing from the warmgate-example-deal "
            + "jar: rebuild it (examples/deal/pom.xml packages examples/spanner/deal-query.sql)");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read deal-query.sql from the classpath", e);
    }
  }
}
