package io.warmgate.agent.deal;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Struct;
import io.grpc.Context;
import io.warmgate.agent.Origin;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Loads {@link Deal}s from Cloud Spanner: one strong single-use read per batch, joining
 * {@code Deals} with {@code Advertisers} and gathering {@code DealAds} and {@code DealTargeting}
 * per deal ({@code examples/spanner/deal-query.sql}). Ids with no row are absent from the result.
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
      Map<String, Deal> deals = new HashMap<>(ids.size() * 2);
      while (rows.next()) {
        Deal deal = toDeal(rows);
        deals.put(deal.dealId(), deal);
      }
      return deals;
    } finally {
      deadline.detach(previous);
      deadline.cancel(null);
    }
  }

  private static Deal toDeal(ResultSet row) {
    List<DealAd> ads = new ArrayList<>();
    for (Struct ad : row.getStructList("Ads")) {
      ads.add(new DealAd(ad.getString("AdId"), ad.getString("CreativeUrl"), ad.getLong("Width"),
          ad.getLong("Height"), ad.getLong("Weight")));
    }
    List<DealTargeting> targeting = new ArrayList<>();
    for (Struct rule : row.getStructList("Targeting")) {
      targeting.add(new DealTargeting(rule.getString("Dimension"), rule.getString("Value"),
          rule.getBoolean("Exclude")));
    }
    return new Deal(
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
        instant(row, "UpdatedAt"),
        ads,
        targeting);
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
