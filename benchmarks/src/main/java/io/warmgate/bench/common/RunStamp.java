package io.warmgate.bench.common;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * What a report is stamped with: the commit it ran on ({@code hack/bench.sh} passes
 * {@code git describe --always --dirty} as {@code -Dwarmgate.commit}), when, and how busy the
 * machine was. A benchmark on a shared machine is only as good as the CPU it got; the load average
 * says how much other work competed for it.
 */
public record RunStamp(String commit, Instant at, int cores, String load) {

  public static RunStamp now() {
    return new RunStamp(System.getProperty("warmgate.commit", "unknown (run outside hack/bench.sh)"),
        Instant.now().truncatedTo(ChronoUnit.SECONDS),
        Runtime.getRuntime().availableProcessors(), loadAverage());
  }

  /** The machine's 1-minute load average, or "load average unknown" where the JVM cannot tell. */
  public static String loadAverage() {
    double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    return load < 0 ? "load average unknown"
        : String.format(Locale.ROOT, "load average %.1f", load);
  }

  public String describe() {
    return String.format(Locale.ROOT, "Ran on commit %s at %s, %d cores, %s at the start.",
        commit, at, cores, load);
  }
}
