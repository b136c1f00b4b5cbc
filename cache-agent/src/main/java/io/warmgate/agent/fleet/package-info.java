/**
 * The fleet-facing side of the agent: {@link io.warmgate.agent.fleet.FleetServices} attaches the
 * agent registry, namespace statistics, hot-key tracking and the preload worker to a cache, so the
 * warmgate operator can see and warm the fleet through Valkey alone
 * ({@code docs/valkey-layout.md}). {@code WarmGate} starts them; users reach
 * {@link io.warmgate.agent.fleet.FleetServices.Builder} through
 * {@code WarmGate.fleetServices(settings)} and {@code FleetServices.agentVersion()} directly.
 * Starting and closing the services is the engine's; not part of the cache's API.
 */
package io.warmgate.agent.fleet;
