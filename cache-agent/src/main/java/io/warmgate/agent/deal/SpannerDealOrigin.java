package io.warmgate.agent.deal;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import io.grpc.Context;
import io.warmgate.agent.Origin;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Loads {@link Deal}s from Cloud Spanner: one strong single-use read per batch, one multi-table
 * JOIN of {@code Deals}, {@code Advertisers}, {@code DealAds} and {@code DealTargeting}
 * ({@code examples/spanner/deal-query.sql}), assembled into deals from consecutive rows. Ids with no row are absent from the result.
 * Spanner errors propagate as {@link com.google.cloud.spanner.SpannerException}. Thread-safe.
 */
public final class SpannerDealOrigin implements Origin<Deal> {

  /**
   * The batched read; {@code @ids} is an {@code ARRAY<STRING>}. Packaged from
   * {@code examples/spanner/deal-query.sql}, the query the emulator tests run, so there is one copy.
   */
  public static final String QUERY = readQuery();

  /** The default bound of one batch read, retries included. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  /** Fires the gRPC deadlines of all instances; daemon, so it never keeps a JVM alive. */
  private static final ScheduledExecutorService DEADLINES =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "warmgate-spanner-deadlines");
        t.setDaemon(true);
        return t;
      });

  private final DatabaseClient client;
  private final Duration timeout;

  /** Creates an origin reading through {@code client} with {@link #DEFAULT_TIMEOUT}. */
  public SpannerDealOrigin(DatabaseClient client) {
    this(client, DEFAULT_TIMEOUT);
  }

  /**
   * Creates an origin reading through {@code client}, which the caller owns and closes. A batch
   * read that takes longer than {@code timeout} (the client's retries included) fails with
   * {@code DEADLINE_EXCEEDED}, so an unreachable Spanner becomes an origin error in bounded time
   * instead of a long retry loop.
   */
  public SpannerDealOrigin(DatabaseClient client, Duration timeout) {
    this.client = Objects.requireNonNull(client, "client");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
  }

  /**
   * Reads {@code ids} with one query.
   *
   * @throws com.google.cloud.spanner.SpannerException if Spanner fails or the timeout passes
   */
  @Override
  public Map<String, Deal> loadAll(Collection<String> ids) {
    Statement statement = Statement.newBuilder(QUERY).bind("ids").toStringArray(ids).build();
    Context.CancellableContext deadline =
        Context.current().withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS, DEADLINES);
    Context previous = deadline.attach();
    try (ResultSet rows = client.singleUse().executeQuery(statement)) {
      return assemble(rows, ids.size());
    } finally {
      deadline.detach(previous);
      deadline.cancel(null);
    }
  }

  /**
   * Builds the deals from the JOIN's rows: one row per (ad, targeting rule) pair of a deal, rows of
   * one deal consecutive, ads and rules in order; a deal without ads or rules has nulls there.
   */
  private static Map<String, Deal> assemble(ResultSet rows, int expected) {
    Map<String, Deal> deals = new HashMap<>(expected * 2);
    String current = null;
    DealColumns head = null;
    Map<String, DealAd> ads = new LinkedHashMap<>();
    Map<String, DealTargeting> targeting = new LinkedHashMap<>();
    while (rows.next()) {
      String dealId = rows.getString("DealId");
      if (!dealId.equals(current)) {
        if (head != null) {
          deals.put(current, head.toDeal(List.copyOf(ads.values()), List.copyOf(targeting.values())));
        }
        current = dealId;
        head = DealColumns.of(rows);
        ads.clear();
        targeting.clear();
      }
      if (!rows.isNull("AdId")) {
        ads.putIfAbsent(rows.getString("AdId"), new DealAd(rows.getString("AdId"),
            rows.getString("CreativeUrl"), rows.getLong("Width"), rows.getLong("Height"),
            rows.getLong("Weight")));
      }
      if (!rows.isNull("Dimension")) {
        String dimension = rows.getString("Dimension");
        String value = rows.getString("Value");
        targeting.putIfAbsent(dimension + "\u0000" + value,
            new DealTargeting(dimension, value, rows.getBoolean("Exclude")));
      }
    }
    if (head != null) {
      deals.put(current, head.toDeal(List.copyOf(ads.values()), List.copyOf(targeting.values())));
    }
    return deals;
  }

  /** The deal's own columns, read from its first row. */
  private record DealColumns(String dealId, String advertiserId, String advertiserName,
      String advertiserDomain, String name, DealStatus status, long floorPriceMicros,
      String currency, Instant startTime, Instant endTime, Instant updatedAt) {

    static DealColumns of(ResultSet row) {
      return new DealColumns(
          row.getString("DealId"),
          row.getString("AdvertiserId"),
          row.getString("AdvertiserName"),
          row.isNull("AdvertiserDomain") ? null : row.getString("AdvertiserDomain"),
          row.getString("Name"),
          DealStatus.valueOf(row.getString("Status")),
          row.getLong("FloorPriceMicros"),
          row.getString("Currency"),
          instant(row, "StartTime"),
          instant(row, "EndTime"),
          instant(row, "UpdatedAt"));
    }

    Deal toDeal(List<DealAd> ads, List<DealTargeting> targeting) {
      return new Deal(dealId, advertiserId, advertiserName, advertiserDomain, name, status,
          floorPriceMicros, currency, startTime, endTime, updatedAt, ads, targeting);
    }
  }

  private static Instant instant(ResultSet row, String column) {
    if (row.isNull(column)) {
      return null;
    }
    Timestamp t = row.getTimestamp(column);
    return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
  }

  private static String readQuery() {
    try (InputStream in = SpannerDealOrigin.class.getResourceAsStream("deal-query.sql")) {
      if (in == null) {
        throw new IllegalStateException("deal-query.sql is missing from the warmgate-cache-agent jar: "
            + "rebuild it (cache-agent/pom.xml packages examples/spanner/deal-query.sql)");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read deal-query.sql from the classpath", e);
    }
  }
}
