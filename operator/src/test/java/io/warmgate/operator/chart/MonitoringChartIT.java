package io.warmgate.operator.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.testing.Helm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's monitoring parts: the PrometheusRule renders files/prometheus-rules.yaml as it is,
 * {@code promtool} (built by hack/prereqs.sh) checks those rendered rules and runs the alert cases
 * of {@code src/test/resources/chart/prometheus-rules-test.yaml} on them, every alert has a firing
 * and a silent case, a summary, a description and a runbook section, and the dashboard renders as
 * a ConfigMap Grafana's sidecar picks up.
 */
class MonitoringChartIT {

  static final String PROMETHEUS_VERSION = System.getProperty("warmgate.prometheus.version",
      "3.16.0");
  static final String RUNBOOK = "https://github.com/warmgate/warmgate/blob/main/docs/runbook.md";
  private static final Path RULE_TESTS = Path.of("src/test/resources/chart/prometheus-rules-test.yaml");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path work;

  @Test
  void prometheusRuleRendersTheRuleFileAsItIs() throws Exception {
    JsonNode rule = render("prometheusRule.enabled=true", "090-PrometheusRule-warmgate.yaml");

    assertThat(rule.path("kind").asText()).isEqualTo("PrometheusRule");
    assertThat(rule.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
    assertThat(rule.path("spec")).isEqualTo(YAML.readTree(ruleFile().toFile()));
  }

  @Test
  void runbookUrlsFollowTheValue() throws Exception {
    JsonNode rule = render("prometheusRule.enabled=true,prometheusRule.runbookUrl="
        + "https://wiki.example.com/warmgate", "090-PrometheusRule-warmgate.yaml");

    for (JsonNode alert : alerts(rule.path("spec"))) {
      assertThat(alert.path("annotations").path("runbook_url").asText()).isEqualTo(
          "https://wiki.example.com/warmgate#" + alert.path("alert").asText().toLowerCase());
    }
  }

  @Test
  void promtoolChecksTheRenderedRulesAndEveryAlertCasePasses() throws Exception {
    JsonNode rule = render("prometheusRule.enabled=true", "090-PrometheusRule-warmgate.yaml");
    Path rules = work.resolve("prometheus-rules.yaml");
    YAML.writeValue(rules.toFile(), rule.path("spec"));
    Files.copy(RULE_TESTS, work.resolve("prometheus-rules-test.yaml"));

    String check = promtool("check", "rules", rules.toString());
    assertThat(check).contains("SUCCESS: " + alerts(rule.path("spec")).size() + " rules found");
    String test = promtool("test", "rules", work.resolve("prometheus-rules-test.yaml").toString());
    assertThat(test).contains("SUCCESS");
  }

  @Test
  void everyAlertHasAFiringAndASilentCase() throws Exception {
    Set<String> names = new TreeSet<>();
    alerts(YAML.readTree(ruleFile().toFile())).forEach(a -> names.add(a.path("alert").asText()));
    Set<String> firing = new HashSet<>();
    Set<String> silent = new HashSet<>();
    for (JsonNode test : YAML.readTree(RULE_TESTS.toFile()).path("tests")) {
      for (JsonNode c : test.path("alert_rule_test")) {
        (c.path("exp_alerts").isEmpty() ? silent : firing).add(c.path("alertname").asText());
      }
    }
    assertThat(names).hasSizeGreaterThanOrEqualTo(11);
    assertThat(firing).as("alerts with a case that fires them").containsAll(names);
    assertThat(silent).as("alerts with a case that leaves them silent").containsAll(names);
  }

  @Test
  void everyAlertSaysWhatToCheckAndLinksItsRunbookSection() throws Exception {
    String runbook = Files.readString(ApiServer.repoDir().resolve("docs/runbook.md"));
    for (JsonNode alert : alerts(YAML.readTree(ruleFile().toFile()))) {
      String name = alert.path("alert").asText();
      JsonNode annotations = alert.path("annotations");
      assertThat(annotations.path("summary").asText()).as("%s summary", name).isNotBlank();
      assertThat(annotations.path("description").asText()).as("%s description", name)
          .contains("Check");
      assertThat(annotations.path("runbook_url").asText()).as("%s runbook_url", name)
          .isEqualTo(RUNBOOK + "#" + name.toLowerCase());
      assertThat(runbook).as("docs/runbook.md section of %s", name).contains("\n### " + name + "\n");
      assertThat(alert.path("labels").path("severity").asText()).as("%s severity", name)
          .isIn("warning", "critical");
    }
  }

  @Test
  void dashboardRendersAsAConfigMapForGrafanasSidecar() throws Exception {
    JsonNode configMap = render("grafanaDashboard.enabled=true",
        "091-ConfigMap-warmgate-dashboard.yaml");

    assertThat(configMap.path("kind").asText()).isEqualTo("ConfigMap");
    assertThat(configMap.path("metadata").path("labels").path("grafana_dashboard").asText())
        .isEqualTo("1");
    JsonNode dashboard = JSON.readTree(configMap.path("data").path("warmgate-release.json").asText());
    assertThat(dashboard).isEqualTo(JSON.readTree(dashboardFile().toFile()));
    assertThat(dashboard.path("uid").asText()).isEqualTo("warmgate-release");
    List<String> titles = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      titles.add(panel.path("title").asText());
      assertThat(panel.path("targets")).as("queries of panel %s", panel.path("title")).isNotEmpty();
      for (JsonNode target : panel.path("targets")) {
        assertThat(target.path("expr").asText()).isNotBlank();
        assertThat(target.path("datasource").path("uid").asText()).isEqualTo("${datasource}");
      }
    }
    assertThat(titles).contains("Gate phase", "Coverage of the hot set", "Hit ratio",
        "Origin reads", "Origin and L2 latency", "L2 errors and breakers", "Preload",
        "Stream gateway coalescing");
  }

  @Test
  void monitoringPartsAreOffByDefault() throws Exception {
    String all = Helm.template(HelmChartIT.NAMESPACE);
    assertThat(all).doesNotContain("kind: PrometheusRule").doesNotContain("kind: PodMonitor")
        .doesNotContain("grafana_dashboard");
  }

  /** The one object {@code template} renders with {@code --set values}, as a tree. */
  private static JsonNode render(String values, String template) throws Exception {
    String yaml = Helm.template(HelmChartIT.NAMESPACE, "--set", values,
        "--show-only", "templates/" + template);
    return YAML.readTree(yaml);
  }

  private static List<JsonNode> alerts(JsonNode spec) {
    List<JsonNode> alerts = new ArrayList<>();
    spec.path("groups").forEach(g -> g.path("rules").forEach(r -> {
      if (r.has("alert")) {
        alerts.add(r);
      }
    }));
    return alerts;
  }

  static Path ruleFile() {
    return Helm.chart().resolve("files/prometheus-rules.yaml");
  }

  static Path dashboardFile() {
    return Helm.chart().resolve("files/dashboards/warmgate-release.json");
  }

  /** Runs promtool with {@code args}, failing with its output unless it exits 0. */
  private String promtool(String... args) throws IOException, InterruptedException {
    Path binary = ApiServer.cacheDir().resolve("bin/prometheus-v" + PROMETHEUS_VERSION
        + "/promtool");
    assertThat(binary).withFailMessage("No promtool v%s at %s; build it with hack/prereqs.sh",
        PROMETHEUS_VERSION, binary).isExecutable();
    List<String> command = new ArrayList<>(List.of(binary.toString()));
    command.addAll(List.of(args));
    Path out = work.resolve("promtool.out");
    Process process = new ProcessBuilder(command).directory(work.toFile())
        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException("promtool did not finish within 2 minutes: " + command);
    }
    String output = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(process.exitValue()).withFailMessage("promtool %s failed (%d):%n%s",
        String.join(" ", args), process.exitValue(), output).isZero();
    return output;
  }
}
