/**
 * Hot-key tracking: a {@link io.warmgate.agent.TieredCache} decorator samples the ids looked up and
 * a periodic flush adds them, with forward exponential decay, to the cache's
 * {@code {wg:<cache>}:hot} sorted set, from which the operator snapshots the ids a warm job
 * preloads. Machinery started by {@link io.warmgate.agent.fleet.FleetServices}.
 */
package io.warmgate.agent.hot;
