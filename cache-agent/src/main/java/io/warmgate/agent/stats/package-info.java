/**
 * Per-namespace statistics in Valkey: the cache's Micrometer counters, flushed as deltas into
 * {@code {wg:<cache>}:stats:<hash>} and its 10-second buckets, and the ids written to L2 into the
 * {@code {wg:<cache>}:keys:<hash>} HyperLogLog. Machinery started by
 * {@link io.warmgate.agent.fleet.FleetServices}; not part of the cache's API.
 */
package io.warmgate.agent.stats;
