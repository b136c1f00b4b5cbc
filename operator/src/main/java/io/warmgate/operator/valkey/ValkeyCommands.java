package io.warmgate.operator.valkey;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;

/**
 * The commands the gate sends to one Valkey deployment, the same interfaces for a standalone
 * server and a cluster (Lettuce's common supertypes). On a cluster each command goes to the
 * primary of its key's slot; a script's keys must share one slot, as the control keys of one
 * cache do ({@code {wg:<cache>}}).
 *
 * @param sync blocking commands, bounded by the probe timeout
 * @param async pipelined commands on the same connection, answered in the order sent per node
 */
public record ValkeyCommands(RedisClusterCommands<String, String> sync,
    RedisClusterAsyncCommands<String, String> async) {}
