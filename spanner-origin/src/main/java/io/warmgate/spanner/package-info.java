/**
 * A batched Cloud Spanner {@link io.warmgate.agent.Origin} for any value type:
 * {@link io.warmgate.spanner.SpannerOrigin} runs one query per batch of ids, bound as an
 * {@code ARRAY<STRING>} parameter, and turns the rows into values with a
 * {@link io.warmgate.spanner.RowMapper}, a {@link io.warmgate.spanner.RowGroupMapper} or Jackson.
 * Everything else in this package is internal.
 */
package io.warmgate.spanner;
