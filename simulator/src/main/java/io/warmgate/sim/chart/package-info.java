/** Plain-SVG chart helpers the simulator and the benchmarks share. */
package io.warmgate.sim.chart;
