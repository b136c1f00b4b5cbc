package io.warmgate.sim;

import io.warmgate.sim.fleet.SimParams;
import io.warmgate.sim.fleet.SimReport;
import io.warmgate.sim.fleet.Simulation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the fleet simulator at both skews and writes {@code simulator-report.md} and the chart
 * {@value SimReport#CHART} into {@code --out}. Arguments: {@code --quick}, {@code --out dir},
 * {@code --commit sha}, {@code --skews 1.21,0.9} and any {@code --<setting> value} of
 * {@link SimParams#with}.
 */
public final class SimMain {

  private SimMain() {}

  public static void main(String[] args) throws IOException {
    boolean quick = false;
    Path out = Path.of("simulator/target/sim");
    String commit = "unknown";
    List<Double> skews = List.of(1.21, 0.9);
    Map<String, String> settings = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--quick")) {
        quick = true;
        continue;
      }
      if (!a.startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("unexpected argument '" + a + "': use --quick, --out "
            + "dir, --commit sha, --skews 1.21,0.9 or --<setting> value");
      }
      String value = args[++i];
      switch (a) {
        case "--out" -> out = Path.of(value);
        case "--commit" -> commit = value;
        case "--skews" -> {
          List<Double> parsed = new ArrayList<>();
          for (String s : value.split(",")) {
            parsed.add(Double.parseDouble(s.trim()));
          }
          skews = parsed;
        }
        default -> settings.put(a.substring(2), value);
      }
    }
    List<Simulation.Run> runs = new ArrayList<>();
    for (double skew : skews) {
      SimParams p = quick ? SimParams.quick(skew) : SimParams.full(skew);
      for (Map.Entry<String, String> s : settings.entrySet()) {
        p = p.with(s.getKey(), s.getValue());
      }
      runs.add(Simulation.run(p, line -> System.err.println("[simulator] " + line)));
    }
    Files.createDirectories(out);
    String report = SimReport.markdown(runs, commit, quick);
    Files.writeString(out.resolve(SimReport.REPORT), report);
    Files.writeString(out.resolve(SimReport.CHART), SimReport.chart(runs));
    System.out.println(report);
  }
}
