/**
 * Fleet benchmarks against the real components: K isolated agents (own L1, own Valkey and Spanner
 * connections) on one Redis and one Spanner emulator, counting origin reads both in the loader and
 * on the wire to the emulator. {@link io.warmgate.bench.fleet.FleetBench} runs them all.
 */
package io.warmgate.bench.fleet;
