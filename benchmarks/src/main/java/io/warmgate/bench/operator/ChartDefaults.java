package io.warmgate.bench.operator;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Quantity;
import io.warmgate.testing.WarmgatePaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The operator's settings as the chart ships them, read from {@code charts/warmgate/values.yaml}
 * so that the benchmarks cannot drift from it: its {@code jvmOptions}, its memory limit and the
 * webhook's {@code timeoutSeconds}.
 *
 * @param jvmOptions the chart's {@code jvmOptions} (its {@code JAVA_TOOL_OPTIONS}), split
 * @param memoryLimitBytes {@code resources.limits.memory}
 * @param webhookTimeout {@code webhook.timeoutSeconds}
 */
record ChartDefaults(List<String> jvmOptions, long memoryLimitBytes, Duration webhookTimeout) {

  private static final Path VALUES = Path.of("charts", "warmgate", "values.yaml");

  static ChartDefaults read() {
    Path file = WarmgatePaths.repoDir().resolve(VALUES);
    Map<String, Object> values;
    try {
      values = new ObjectMapper(new YAMLFactory()).readValue(Files.readString(file),
          new TypeReference<Map<String, Object>>() { });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    String options = (String) values.get("jvmOptions");
    Object memory = path(values, file, "resources", "limits", "memory");
    Object timeout = path(values, file, "webhook", "timeoutSeconds");
    return new ChartDefaults(Arrays.asList(options.trim().split("\\s+")),
        Quantity.getAmountInBytes(new Quantity(memory.toString())).longValueExact(),
        Duration.ofSeconds(((Number) timeout).longValue()));
  }

  /**
   * The {@code java} options of a JVM run as the chart runs the operator: the chart's options,
   * with the JVM told the container's memory limit ({@code -XX:MaxRAM}), which it would read
   * from the cgroup in the pod.
   */
  List<String> jvmCommandLine() {
    List<String> line = new ArrayList<>();
    line.add("-XX:MaxRAM=" + (memoryLimitBytes >> 20) + "m");
    line.addAll(jvmOptions);
    return List.copyOf(line);
  }

  @SuppressWarnings("unchecked")
  private static Object path(Map<String, Object> values, Path file, String... keys) {
    Object node = values;
    for (String key : keys) {
      if (!(node instanceof Map<?, ?> map) || !map.containsKey(key)) {
        throw new IllegalStateException(file + " has no " + String.join(".", keys));
      }
      node = ((Map<String, Object>) map).get(key);
    }
    return node;
  }
}
