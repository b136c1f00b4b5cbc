/**
 * The fleet-facing side of the agent: {@link io.warmgate.agent.fleet.FleetServices} attaches the
 * agent registry, namespace statistics, hot-key tracking and the preload worker to a cache, so the
 * warmgate operator can see and warm the fleet through Valkey alone
 * ({@code docs/valkey-layout.md}).
 */
package io.warmgate.agent.fleet;
