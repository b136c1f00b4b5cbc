/** What the benchmark parts share: the summary table the README quotes and the Zipf id draws. */
package io.warmgate.bench.common;
