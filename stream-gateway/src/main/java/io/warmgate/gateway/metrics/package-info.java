/** The gateway's counters (Micrometer). */
package io.warmgate.gateway.metrics;
