/**
 * The preload worker: when the operator opens a warm job {@code {wg:<cache>}:warm:<hash>} for this
 * agent's schema hash, one agent of that hash (the holder of the job's lock) loads the job's ids
 * through the cache at the job's rate, which fills the new L2 namespace, and reports its progress
 * in the job. Machinery started by {@link io.warmgate.agent.fleet.FleetServices}.
 */
package io.warmgate.agent.preload;
