/**
 * The L2 tier: key names ({@link io.warmgate.agent.l2.KeySpace}, over the contract's
 * {@code io.warmgate.contract.valkey}), the stored envelope, where L2 is
 * ({@link io.warmgate.agent.l2.ValkeyEndpoint}: a standalone server or a cluster), the connection
 * that gives the agent the same commands in both modes
 * ({@link io.warmgate.agent.l2.ValkeyConnection}) and the guarded client of the data path
 * ({@link io.warmgate.agent.l2.L2Store}). {@code KeySpace} is public for the agent's other
 * packages and the Spanner origin's watcher, {@code ValkeyEndpoint} for configuration in code,
 * {@code ValkeyConnection} for the fleet services; the rest is machinery.
 */
package io.warmgate.agent.l2;
