package io.warmgate.spanner;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import io.grpc.Context;
import io.warmgate.agent.Origin;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Loads a batch of ids from Cloud Spanner with one strong single-use query, the ids bound as an
 * {@code ARRAY<STRING>} parameter:
 *
 * <pre>{@code
 * SpannerOrigin<Product> products = SpannerOrigin.builder(databaseClient)
 *     .query("SELECT ProductId, Name, PriceMicros FROM Products WHERE ProductId IN UNNEST(@ids)")
 *     .idColumn("ProductId")
 *     .mapColumns(Product.class);   // or mapRows(row -> ...), or mapRowGroups(rows -> ...)
 * }</pre>
 *
 * <p>Ids with no row are absent from the result (the cache stores them as not found). A read that
 * takes longer than the {@linkplain Builder#timeout timeout}, the client's retries included, fails
 * with {@code DEADLINE_EXCEEDED}, so an unreachable Spanner becomes an origin error in bounded
 * time instead of a long retry loop. Spanner errors propagate as
 * {@link com.google.cloud.spanner.SpannerException}; a result the mapping cannot use (no id column,
 * a NULL id, two rows for one id with {@code mapRows}) as {@link IllegalStateException} naming
 * the column or id. Thread-safe; the client is the caller's to close.
 *
 * @param <V> the value type
 */
public final class SpannerOrigin<V> implements Origin<V> {

  /** The default bound of one batch read, retries included. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  /** The default name of the query parameter that receives the ids. */
  public static final String DEFAULT_IDS_PARAMETER = "ids";

  private final DatabaseClient client;
  private final String query;
  private final String idsParameter;
  private final Duration timeout;
  private final RowsReader<V> reader;

  private SpannerOrigin(Builder builder, RowsReader<V> reader) {
    this.client = builder.client;
    this.query = builder.query;
    this.idsParameter = builder.idsParameter;
    this.timeout = builder.timeout;
    this.reader = reader;
  }

  /** Starts an origin that reads through {@code client}, which the caller owns and closes. */
  public static Builder builder(DatabaseClient client) {
    return new Builder(Objects.requireNonNull(client, "client"));
  }

  /**
   * Reads {@code ids} with one query.
   *
   * @throws com.google.cloud.spanner.SpannerException if Spanner fails or the timeout passes
   * @throws IllegalStateException if the rows do not fit the mapping (the message says why)
   */
  @Override
  public Map<String, V> loadAll(Collection<String> ids) {
    Statement statement = Statement.newBuilder(query).bind(idsParameter).toStringArray(ids).build();
    Context.CancellableContext deadline = Context.current()
        .withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS, Deadlines.SCHEDULER);
    Context previous = deadline.attach();
    try (ResultSet rows = client.singleUse().executeQuery(statement)) {
      return reader.read(rows, ids.size());
    } finally {
      deadline.detach(previous);
      deadline.cancel(null);
    }
  }

  /** Returns the query this origin runs. */
  public String query() {
    return query;
  }

  /** Returns the bound of one batch read. */
  public Duration timeout() {
    return timeout;
  }

  @Override
  public String toString() {
    return "SpannerOrigin[idColumn=" + reader.idColumn() + ", @" + idsParameter + ", timeout="
        + timeout + "]";
  }

  /**
   * Configures a {@link SpannerOrigin}: set the {@link #query query} and the {@link #idColumn id
   * column}, optionally the {@link #timeout} and {@link #idsParameter}, then finish with one of
   * the {@code map...} methods, which validate the settings and return the origin. Not
   * thread-safe.
   */
  public static final class Builder {

    private final DatabaseClient client;
    private String query;
    private String idColumn;
    private String idsParameter = DEFAULT_IDS_PARAMETER;
    private Duration timeout = DEFAULT_TIMEOUT;

    private Builder(DatabaseClient client) {
      this.client = client;
    }

    /**
     * Sets the batched read: a GoogleSQL query that takes the ids as {@code @ids}
     * ({@code ARRAY<STRING>}), e.g. {@code ... WHERE t.Id IN UNNEST(@ids)}, and returns the
     * {@linkplain #idColumn id column} in every row.
     */
    public Builder query(String sql) {
      this.query = Objects.requireNonNull(sql, "sql");
      return this;
    }

    /**
     * Names the result column that holds each row's id (a {@code STRING}); matched exactly, else
     * ignoring case.
     */
    public Builder idColumn(String column) {
      this.idColumn = Objects.requireNonNull(column, "column");
      return this;
    }

    /**
     * Renames the parameter the ids are bound to (default {@value #DEFAULT_IDS_PARAMETER});
     * without the {@code @}.
     */
    public Builder idsParameter(String name) {
      this.idsParameter = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * Bounds one batch read, the client's retries included (default 5 s). Keep it below the time
     * a caller will wait for a cache miss.
     */
    public Builder timeout(Duration timeout) {
      this.timeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * Finishes with one row per id: {@code mapper} turns each row into the id's value.
     *
     * @throws IllegalStateException if the query or id column is missing or invalid
     */
    public <V> SpannerOrigin<V> mapRows(RowMapper<? extends V> mapper) {
      Objects.requireNonNull(mapper, "mapper");
      validate();
      return new SpannerOrigin<>(this, new OneRowPerId<>(idColumn, mapper));
    }

    /**
     * Finishes with several rows per id (a JOIN with child tables): the rows are grouped by id,
     * in query order, and {@code mapper} assembles each group into the id's value.
     *
     * @throws IllegalStateException if the query or id column is missing or invalid
     */
    public <V> SpannerOrigin<V> mapRowGroups(RowGroupMapper<? extends V> mapper) {
      Objects.requireNonNull(mapper, "mapper");
      validate();
      return new SpannerOrigin<>(this, new RowsPerId<>(idColumn, mapper));
    }

    /**
     * Finishes with one row per id, each row's columns bound to {@code type}'s properties by
     * Jackson: column names match property names ignoring case ({@code FloorPrice} fills
     * {@code floorPrice}; alias others with {@code AS}); TIMESTAMP and DATE columns become
     * {@code Instant} and {@code LocalDate}, JSON columns nested objects, ARRAY columns lists,
     * STRUCT columns nested objects. A column without a property fails the read: select only
     * what the type holds.
     *
     * @throws IllegalStateException if the query or id column is missing or invalid
     */
    public <V> SpannerOrigin<V> mapColumns(Class<V> type) {
      return mapColumns(type, ColumnsMapper.defaultObjectMapper());
    }

    /**
     * As {@link #mapColumns(Class)}, binding with {@code objectMapper} (its modules and naming
     * strategy) instead of the default one.
     */
    public <V> SpannerOrigin<V> mapColumns(Class<V> type, ObjectMapper objectMapper) {
      ColumnsMapper<V> mapper = new ColumnsMapper<>(type, objectMapper);
      validate();
      return new SpannerOrigin<>(this, new OneRowPerId<>(idColumn, mapper));
    }

    private void validate() {
      if (query == null) {
        throw new IllegalStateException("query is not set: call query(\"SELECT ... FROM T WHERE "
            + "T.Id IN UNNEST(@" + idsParameter + ")\")");
      }
      QueryParameters.requireIdsParameter(query, idsParameter);
      if (idColumn == null || idColumn.isBlank()) {
        throw new IllegalStateException("idColumn is "
            + (idColumn == null ? "not set" : "blank") + ": name the query's result column that "
            + "holds the id, e.g. idColumn(\"ProductId\")");
      }
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalStateException("timeout must be positive, got " + timeout
            + ": use e.g. timeout(Duration.ofSeconds(2))");
      }
    }
  }
}
