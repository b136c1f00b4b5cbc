/**
 * What the benchmark parts share: the summary table docs/performance.md quotes, the Zipf id draws,
 * the in-memory deals and the stamp of a run (commit, time, cores, load).
 */
package io.warmgate.bench.common;
