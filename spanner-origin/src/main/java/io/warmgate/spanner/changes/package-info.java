/**
 * Invalidation from a Spanner change stream: {@link io.warmgate.spanner.changes.ChangeStreamWatcher}
 * reads a change stream over the origin's tables in one elected pod of a cache, turns each row
 * change into the ids it affects ({@link io.warmgate.spanner.changes.ChangeMapper}) and invalidates
 * them in every pod and live key space of the cache.
 */
package io.warmgate.spanner.changes;
