package io.warmgate.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.warmgate.contract.Durations;
import io.warmgate.operator.testing.ApiServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The API server, serving the generated CRD (pattern, length and CEL {@code duration()}), admits a
 * duration exactly when {@link Durations#parse}, which the agent, the operator and the stream
 * gateway all use, accepts it.
 */
class DurationsAgreeIT {

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  /** Every documented form, the edges of the grammar and what any parser once took besides. */
  static final List<String> VALUES = List.of(
      "500ms", "60s", "4m", "1h30m", "1.5s", "0", "0s", "1.5h", "0.5ms", "2h0m1s", "1s1h",
      "20ms", "0.000000001ms", "2562047h", "2562047h47m16.854775807s", "999999999ms",
      "1s".repeat(16),
      "", "60", "s", "-5s", "+5s", "5 s", "5sec", "1d", "PT1M", "4M", ".5s", "5.s", "00",
      "1000000000s", "1.0000000001s", "500us", "500µs", "500ns", "1e3ms", "1s".repeat(17),
      "999999999h", "2562048h", "2562047h47m16.854775808s");

  /** Every duration field of the spec. */
  static final List<String> DURATION_FIELDS = List.of("l1Ttl", "l2Ttl", "negativeTtl",
      "refreshAhead", "lockTtl", "l2Timeout", "maxStaleness", "staleIfError", "warmup.maxWait",
      "warmup.hitRatioWindow", "changeStream.heartbeat");

  static String namespace;
  static JSONSchemaProps spec;

  @BeforeAll
  static void installCrd() {
    api.applyCrd(ApiServer.cachePolicyCrd());
    namespace = api.newNamespace("durations");
    spec = api.client().apiextensions().v1().customResourceDefinitions()
        .withName("cachepolicies.warmgate.io").get().getSpec().getVersions().get(0).getSchema()
        .getOpenAPIV3Schema().getProperties().get("spec");
  }

  @Test
  void everyDurationFieldCarriesTheGrammarsPatternAndLength() {
    List<String> withPattern = new ArrayList<>();
    collectDurationFields("", spec.getProperties(), withPattern);
    assertThat(withPattern).containsExactlyInAnyOrderElementsOf(DURATION_FIELDS);
  }

  @Test
  void theApiServerAdmitsExactlyWhatTheParserAccepts() {
    List<String> disagreements = new ArrayList<>();
    int admitted = 0;
    for (int i = 0; i < VALUES.size(); i++) {
      String value = VALUES.get(i);
      String server = refusal("d" + i, value);
      String parser = parseRefusal(value);
      if ((server == null) != (parser == null)) {
        disagreements.add("'" + value + "': API server " + (server == null ? "admits" : server)
            + "; Durations.parse " + (parser == null ? "accepts" : parser));
      }
      admitted += server == null ? 1 : 0;
    }
    assertThat(disagreements).as("values the API server and the parser disagree on").isEmpty();
    assertThat(admitted).as("the first 17 values are durations").isEqualTo(17);
  }

  /** staleIfError: only the grammar and CEL's duration() (at least 0s) apply to it. */
  private static String refusal(String name, String value) {
    CachePolicySpec s = new CachePolicySpec();
    s.setTargetRef(new TargetRef(TargetKind.Deployment, "app"));
    s.setCacheName("deals");
    ValkeySpec valkey = new ValkeySpec();
    valkey.setAddresses(List.of("valkey:6379"));
    s.setValkey(valkey);
    s.setStaleIfError(value);
    String refusal = api.refusal(namespace, name, s);
    if (refusal != null) {
      assertThat(refusal).contains("spec.staleIfError");
    }
    return refusal;
  }


  private static String parseRefusal(String value) {
    try {
      Durations.parse(value);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  private static void collectDurationFields(String path, Map<String, JSONSchemaProps> properties,
      List<String> out) {
    if (properties == null) {
      return;
    }
    properties.forEach((name, prop) -> {
      String field = path.isEmpty() ? name : path + "." + name;
      if (Durations.PATTERN.equals(prop.getPattern())) {
        assertThat(prop.getMaxLength()).as(field).isEqualTo((long) Durations.MAX_LENGTH);
        out.add(field);
      }
      collectDurationFields(field, prop.getProperties(), out);
    });
  }
}
