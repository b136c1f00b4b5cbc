/**
 * The L2 tier: key names ({@link io.warmgate.agent.l2.KeySpace}, over the contract's
 * {@code io.warmgate.contract.valkey}), the stored envelope and the guarded client of the data
 * path ({@link io.warmgate.agent.l2.L2Store}), over the connection of {@code warmgate-valkey-client}
 * ({@link io.warmgate.valkey.ValkeyConnection}). {@code KeySpace} is public for the agent's other
 * packages and the Spanner origin's watcher, {@code Envelope} and {@code L2Store} for the engine
 * (and the invalidator); none is part of the cache's API.
 */
package io.warmgate.agent.l2;
