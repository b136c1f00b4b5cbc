/** What the benchmark parts share: the summary table docs/performance.md quotes and the Zipf id draws. */
package io.warmgate.bench.common;
