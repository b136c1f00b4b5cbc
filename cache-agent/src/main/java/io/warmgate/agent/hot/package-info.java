/**
 * Hot-key tracking: {@link io.warmgate.agent.hot.HotKeys} holds the sampled ids of lookups (the
 * cache records them) and a periodic flush adds them, with forward exponential decay, to the
 * cache's {@code {wg:<cache>}:hot} sorted set, from which the operator snapshots the ids a warm
 * job preloads. Machinery flushed by {@link io.warmgate.agent.fleet.FleetServices}; {@code HotKeys}
 * is public for the fleet services' settings and for tests that play agents, not part of the
 * cache's API.
 */
package io.warmgate.agent.hot;
