package io.warmgate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.warmgate.bench.common.Summary;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Renders the gate timings that {@code GateTimingE2E} recorded on the whole stack (kwok cluster,
 * the real Argo Rollouts controller, the operator process, pods whose agents heartbeat for real),
 * which {@code hack/bench.sh} runs before the benchmarks.
 */
final class GateTimings {

  /** The design's bars: warm → released within 1 s (p95), same schema within 5 s. */
  static final long REACTION_BAR_MS = 1_000;
  static final long SAME_SCHEMA_BAR_MS = 5_000;

  private GateTimings() {}

  static String render(Path file, Summary summary) throws IOException {
    JsonNode json = new ObjectMapper().readTree(file.toFile());
    StringBuilder md = new StringBuilder("## Gate on the whole stack\n\n");
    md.append("`GateTimingE2E` on the kwok cluster with the real Argo Rollouts controller, the "
        + "operator as its own process and deal-service pods as local processes whose agents "
        + "heartbeat for real; one poller every ").append(json.get("pollMillis").asLong())
        .append(" ms. kwok marks pods Ready before a local pod's JVM has started, so the gate "
            + "figure runs from the later of: paused at the gate step, the canary's agent "
            + "registered, and (schema change) coverage reached as measured by the test.\n\n");
    md.append("| release | gate phase | paused → released | agent registered after the pause | "
        + "last precondition → released |\n| --- | --- | ---: | ---: | ---: |\n");
    List<Long> same = new ArrayList<>();
    long schemaChange = -1;
    for (JsonNode r : json.get("releases")) {
      long gate = r.get("gateMs").asLong();
      md.append(String.format(Locale.ROOT, "| %s | %s | %,d ms | %,d ms | **%,d ms** |%n",
          r.get("kind").asText(), r.get("phase").asText(), r.get("pausedToReleasedMs").asLong(),
          r.get("registeredAfterPauseMs").asLong(), gate));
      if ("same schema".equals(r.get("kind").asText())) {
        same.add(gate);
      } else {
        schemaChange = gate;
      }
    }
    Collections.sort(same);
    md.append('\n');
    if (schemaChange >= 0) {
      summary.add("warm (coverage reached, paused, agent registered) → released, whole stack with "
          + "the real Argo controller", "10-min fixed pause (a constant)",
          String.format(Locale.ROOT, "%,d ms", schemaChange),
          String.format(Locale.ROOT, "≤ %,d ms", REACTION_BAR_MS), schemaChange <= REACTION_BAR_MS);
    }
    if (!same.isEmpty()) {
      summary.add("same schema: paused and agent registered → released, whole stack (median / max of "
          + same.size() + ")", "10-min fixed pause (a constant)",
          String.format(Locale.ROOT, "%,d / %,d ms", same.get(same.size() / 2),
              same.get(same.size() - 1)),
          String.format(Locale.ROOT, "≤ %,d ms (max)", SAME_SCHEMA_BAR_MS),
          same.get(same.size() - 1) <= SAME_SCHEMA_BAR_MS);
    }
    return md.toString();
  }
}
