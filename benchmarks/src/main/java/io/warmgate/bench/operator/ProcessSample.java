package io.warmgate.bench.operator;

import io.warmgate.testing.OperatorProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * One look at the operator JVM: kernel memory figures from {@code /proc/<pid>/status}, CPU time
 * from the OS, JVM heap from the operator's own {@code /metrics}.
 *
 * @param rssKib VmRSS, resident memory now
 * @param hwmKib VmHWM, the peak resident memory since the process started
 * @param threads OS threads
 * @param heapUsedBytes sum of {@code jvm_memory_used_bytes{area="heap"}} (live data and garbage)
 * @param heapCommittedBytes sum of {@code jvm_memory_committed_bytes{area="heap"}}
 * @param cpu user + system CPU time since the process started
 */
record ProcessSample(long rssKib, long hwmKib, long threads, double heapUsedBytes,
    double heapCommittedBytes, Duration cpu) {

  static ProcessSample of(OperatorProcess operator) {
    long pid = operator.pid();
    Map<String, Long> status = procStatus(pid);
    String metrics = operator.get("metrics");
    Duration cpu = ProcessHandle.of(pid).flatMap(p -> p.info().totalCpuDuration())
        .orElseThrow(() -> new IllegalStateException("no CPU time for pid " + pid));
    return new ProcessSample(status.get("VmRSS"), status.get("VmHWM"), status.get("Threads"),
        PrometheusText.sum(metrics, "jvm_memory_used_bytes", "area=\"heap\""),
        PrometheusText.sum(metrics, "jvm_memory_committed_bytes", "area=\"heap\""), cpu);
  }

  private static Map<String, Long> procStatus(long pid) {
    Path file = Path.of("/proc", Long.toString(pid), "status");
    try {
      Map<String, Long> values = new java.util.HashMap<>();
      for (String line : Files.readAllLines(file)) {
        String[] parts = line.split(":\\s+", 2);
        if (parts.length == 2 && parts[1].matches("\\d+( kB)?")) {
          values.put(parts[0], Long.parseLong(parts[1].replace(" kB", "")));
        }
      }
      for (String key : new String[] {"VmRSS", "VmHWM", "Threads"}) {
        if (!values.containsKey(key)) {
          throw new IllegalStateException(file + " has no " + key + " line");
        }
      }
      return values;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + " (Linux only)", e);
    }
  }

  double rssMib() {
    return rssKib / 1024.0;
  }

  double hwmMib() {
    return hwmKib / 1024.0;
  }

  Map<String, Object> toJson() {
    return Map.of("rssKiB", rssKib, "hwmKiB", hwmKib, "threads", threads,
        "heapUsedBytes", heapUsedBytes, "heapCommittedBytes", heapCommittedBytes,
        "cpuMs", cpu.toMillis());
  }
}
