/**
 * Invalidation across pods and key spaces: {@link io.warmgate.agent.invalidate.Invalidator}
 * deletes ids' values in every live schema key space of a cache and appends them to the cache's
 * stream {@code {wg:<cache>}:invalidations} ({@link io.warmgate.agent.invalidate.InvalidationLog});
 * each pod's {@link io.warmgate.agent.invalidate.InvalidationListener} reads the stream and drops
 * the ids from its in-process tier ({@link io.warmgate.agent.invalidate.LocalTier}). Machinery
 * started by {@link io.warmgate.agent.fleet.FleetServices}; the cache's API is
 * {@code TieredCache.invalidate} and {@code invalidateAll}.
 */
package io.warmgate.agent.invalidate;
