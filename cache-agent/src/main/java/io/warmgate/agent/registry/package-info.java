/**
 * The agent registry: each agent heartbeats its identity into {@code {wg:<cache>}:agents} so the
 * operator can tell which schema hash a pod (and so a ReplicaSet) serves without reaching pods.
 * Machinery started by {@link io.warmgate.agent.fleet.FleetServices}; not part of the cache's API.
 */
package io.warmgate.agent.registry;
