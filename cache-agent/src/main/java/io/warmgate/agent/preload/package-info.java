/**
 * The preload worker: when the operator opens a warm job {@code {wg:<cache>}:warm:<hash>} for this
 * agent's schema hash, one agent of that hash (the holder of the job's lock) loads the job's ids
 * through the cache at the job's rate, which fills the new L2 namespace, and reports its progress
 * in the job. It sees the cache as a {@link io.warmgate.agent.preload.WarmableCache}, to which
 * {@code WarmGate} adapts the {@code TieredCache} it builds. Machinery started by
 * {@link io.warmgate.agent.fleet.FleetServices}; {@code PreloadWorker} and {@code WarmableCache} are
 * public for the fleet services (and tests and benchmarks that drive a warm job), not part of the
 * cache's API.
 */
package io.warmgate.agent.preload;
