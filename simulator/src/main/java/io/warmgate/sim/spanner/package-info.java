/**
 * A capacity-modelled Cloud Spanner origin in virtual time: a stand-in built from published
 * figures, shared by the fleet simulator and the benchmarks' real-time origin.
 */
package io.warmgate.sim.spanner;
