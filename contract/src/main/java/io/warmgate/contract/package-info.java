/**
 * What the warmgate operator and the cache agent must read alike, in one dependency-free place that
 * both compile against: the duration grammar ({@link io.warmgate.contract.Durations}), the key
 * space version rule ({@link io.warmgate.contract.KeySpaceVersions}) and the names of the
 * {@code WARMGATE_*} variables the operator injects and the agent reads
 * ({@link io.warmgate.contract.AgentVariables}); the Valkey layout they share is in
 * {@link io.warmgate.contract.valkey}.
 */
package io.warmgate.contract;
