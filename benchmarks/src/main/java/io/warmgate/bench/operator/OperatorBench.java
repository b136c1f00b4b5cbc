package io.warmgate.bench.operator;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.warmgate.bench.common.Summary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * The operator benchmarks: gate reaction and same-schema release (operator in this JVM), the
 * release-time table, and the footprint of the operator as its own JVM with 100 CachePolicies and
 * 100 Rollouts, all against a real kube-apiserver and Redis started here.
 *
 * <p>Run alone: {@code java -cp ... io.warmgate.bench.operator.OperatorBench [--quick]
 * [--out DIR] [--preload-keys-per-second X] [--repetitions N] [--pods K]}. Needs the packaged
 * {@code operator} module (its {@code target/classpath.txt}) and the binaries of
 * {@code hack/prereqs.sh}.
 */
public final class OperatorBench {

  /** The preload rate assumed when the preload benchmark did not run: the policy's default cap. */
  public static final double DEFAULT_PRELOAD_KEYS_PER_SECOND =
      OperatorBenchSettings.DEFAULT_PRELOAD_KEYS_PER_SECOND;

  private OperatorBench() {}

  /**
   * Runs every operator benchmark, writes {@code <outDir>/operator.json} and returns the Markdown
   * section. Quick mode takes under 2 minutes, full mode under 6. Lowers the operator, JOSDK,
   * fabric8 and Lettuce loggers of this JVM to WARN/ERROR.
   *
   * @param preloadKeysPerSecond the preload worker's keys/s as the preload benchmark measured it;
   *     an input of the release-time table, never measured here
   * @throws IllegalArgumentException if {@code preloadKeysPerSecond} is not positive
   * @throws IllegalStateException if a process does not start or a measurement times out
   */
  public static String run(Path outDir, boolean quick, double preloadKeysPerSecond,
      Summary summary) {
    return run(outDir, OperatorBenchSettings.of(quick, preloadKeysPerSecond), summary);
  }

  static String run(Path outDir, OperatorBenchSettings settings, Summary summary) {
    quietOperatorLogs();
    long start = System.nanoTime();
    try {
      Files.createDirectories(outDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + outDir, e);
    }
    try (BenchCluster cluster = new BenchCluster().start()) {
      FootprintBench.Result footprint =
          new FootprintBench(cluster, settings, outDir.resolve("operator-footprint")).run();
      GateBench.Result gate = new GateBench(cluster, settings).run();
      ReleaseTimes release = ReleaseTimes.of(settings, gate);
      String markdown = OperatorReport.render(settings, gate, release, footprint, summary);
      writeJson(outDir.resolve("operator.json"), settings, gate, release, footprint,
          (System.nanoTime() - start) / 1e9);
      return markdown;
    }
  }

  public static void main(String[] args) throws IOException {
    boolean quick = false;
    Path out = Path.of("benchmarks", "target", "bench");
    double rate = OperatorBenchSettings.DEFAULT_PRELOAD_KEYS_PER_SECOND;
    Integer repetitions = null;
    Integer pods = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--out" -> out = Path.of(args[++i]);
        case "--preload-keys-per-second" -> rate = Double.parseDouble(args[++i]);
        case "--repetitions" -> repetitions = Integer.parseInt(args[++i]);
        case "--pods" -> pods = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "': use "
            + "[--quick] [--out DIR] [--preload-keys-per-second X] [--repetitions N] [--pods K]");
      }
    }
    OperatorBenchSettings settings = OperatorBenchSettings.of(quick, rate);
    if (repetitions != null) {
      settings = settings.withRepetitions(repetitions);
    }
    if (pods != null) {
      settings = settings.withPods(pods);
    }
    long start = System.nanoTime();
    String markdown = run(out, settings, new Summary());
    Files.writeString(out.resolve("operator.md"), markdown);
    System.out.println(markdown);
    System.out.printf("operator benchmarks: %.0f s; %s%n", (System.nanoTime() - start) / 1e9,
        out.resolve("operator.json"));
    System.exit(0); // even if a client library left a non-daemon thread behind
  }

  /**
   * The in-process operator logs every gate action at INFO, and Lettuce warns each time a deleted
   * policy's Valkey client closes under a running reconciliation; keep the output readable.
   */
  private static void quietOperatorLogs() {
    Map<String, Level> levels = Map.of("io.warmgate.operator", Level.WARN,
        "io.javaoperatorsdk", Level.WARN, "io.fabric8", Level.WARN, "io.lettuce", Level.ERROR);
    levels.forEach((name, level) -> {
      if (LoggerFactory.getLogger(name) instanceof Logger logger) {
        logger.setLevel(level);
      }
    });
  }

  private static void writeJson(Path file, OperatorBenchSettings s, GateBench.Result gate,
      ReleaseTimes release, FootprintBench.Result f, double seconds) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("quick", s.quick());
    json.put("seconds", seconds);
    json.put("settings", Map.of("repetitions", s.repetitions(), "pods", s.pods(),
        "canaryPods", s.canaryPods(), "policies", s.policies(), "settleSeconds",
        s.settle().toSeconds(), "preloadKeysPerSecondInput", s.preloadKeysPerSecond(),
        "hotSetSize", s.hotSetSize(), "minCoverage", s.minCoverage()));
    json.put("gate", Map.of("reactionMs", gate.reaction().toJson(),
        "sameSchemaMs", gate.sameSchema().toJson(), "reactionBarMs", OperatorReport.REACTION_BAR_MS));
    json.put("releaseTimes", release.toJson());
    Map<String, Object> footprint = new LinkedHashMap<>();
    footprint.put("jvmOptions", FootprintBench.JVM_OPTIONS);
    footprint.put("idle", f.idle().toJson());
    footprint.put("loaded", f.loaded().toJson());
    footprint.put("afterUpdate", f.afterUpdate().toJson());
    footprint.put("singleIdleMs", f.singleIdle().toJson());
    footprint.put("singleLoadedMs", f.singleLoaded().toJson());
    footprint.put("burstCreateMs", f.burstCreate().toJson());
    footprint.put("burstUpdateMs", f.burstUpdate().toJson());
    json.put("footprint", footprint);
    try {
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).writeValue(file.toFile(), json);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
