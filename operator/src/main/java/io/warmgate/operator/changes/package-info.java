/**
 * The operator's view of a policy's change-stream reader, read from the cache's Valkey and
 * reported as {@code status.changeStream} and the {@code ChangesFollowed} condition.
 */
package io.warmgate.operator.changes;
