package io.warmgate.operator.decision;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.warmgate.operator.gate.WarmVerdict;

/**
 * The JSON of a {@link WarmVerdict}: {@code warm}, {@code phase}, {@code reason},
 * {@code message}, {@code coverage} and {@code minCoverage} (percent), {@code hitRatio} (0-1),
 * {@code schemaHash} and {@code stableSchemaHash}, {@code podHash} and {@code stablePodHash},
 * {@code workload}, {@code policy} and {@code forecast} (as {@code status.gate.forecast}).
 * Absent values are null, never missing keys, so an expression on them never fails to parse.
 */
final class VerdictJson {

  private static final ObjectMapper JSON = new ObjectMapper();

  private VerdictJson() {}

  static String of(String policy, WarmVerdict v) {
    ObjectNode node = JSON.createObjectNode();
    node.put("warm", v.warm());
    node.put("policy", policy);
    node.put("workload", v.pods().workload());
    node.put("phase", v.decision().phase().name());
    node.put("reason", v.decision().reason());
    node.put("message", v.decision().message());
    node.put("coverage", v.coverage() == null ? null : v.coverage().percent());
    node.put("minCoverage", v.minCoverage());
    node.put("hitRatio", v.hitRatio());
    node.put("schemaHash", v.newSchemaHash());
    node.put("stableSchemaHash", v.stableSchemaHash());
    node.put("podHash", v.pods().newPodHash());
    node.put("stablePodHash", v.pods().stablePodHash());
    node.set("forecast", JSON.valueToTree(v.forecast()));
    return write(node);
  }

  /** {@code {"error": message}}. */
  static String error(String message) {
    return write(JSON.createObjectNode().put("error", message));
  }

  private static String write(ObjectNode node) {
    try {
      return JSON.writeValueAsString(node) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }
}
