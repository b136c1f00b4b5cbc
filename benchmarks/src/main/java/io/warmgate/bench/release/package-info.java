/**
 * The release benchmark: a whole schema-changing release of a fleet under steady traffic, played
 * under five strategies on the real Redis, Spanner emulator, kube-apiserver and operator, and what
 * each cost the origin over time.
 */
package io.warmgate.bench.release;
