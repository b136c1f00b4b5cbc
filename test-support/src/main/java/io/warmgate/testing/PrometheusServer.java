package io.warmgate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real Prometheus (the binary {@code hack/prereqs.sh} builds from the Prometheus Go module) on a
 * free loopback port, scraping the jobs given before {@link #start()} and evaluating the given rule
 * files. Its data lives in a directory of its own and goes with it. Answers of the HTTP API are
 * returned as the JSON text Prometheus sent. Not thread-safe.
 */
public final class PrometheusServer implements AutoCloseable {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Path dir;
  private final Duration interval;
  private final StringBuilder scrapeConfigs = new StringBuilder();
  private final List<Path> ruleFiles = new ArrayList<>();
  private final int port = FreePorts.next();
  private ManagedProcess process;

  /**
   * @param dir where its configuration and data go (created)
   * @param interval scrape and rule evaluation interval
   */
  public PrometheusServer(Path dir, Duration interval) {
    this.dir = dir;
    this.interval = interval;
  }

  /**
   * Scrapes {@code targets} ({@code host:port}) at {@code /metrics} as job {@code job}, each target
   * labelled {@code labels}. With {@code honorLabels}, labels the target exports win over these
   * (as for the operator, whose policy gauges carry the policy's {@code namespace}).
   */
  public PrometheusServer scrapeStatic(String job, List<String> targets, Map<String, String> labels,
      boolean honorLabels) {
    scrapeConfigs.append("  - job_name: ").append(quote(job)).append('\n')
        .append("    honor_labels: ").append(honorLabels).append('\n')
        .append("    static_configs:\n")
        .append("      - targets: [").append(String.join(", ", targets.stream().map(PrometheusServer::quote).toList()))
        .append("]\n")
        .append("        labels: {").append(String.join(", ", labels.entrySet().stream()
            .map(e -> e.getKey() + ": " + quote(e.getValue())).toList())).append("}\n");
    return this;
  }

  /**
   * Scrapes the targets listed in the files matching {@code glob} (Prometheus file service
   * discovery, re-read when they change; a pattern only in the last path element), such as the
   * {@code targets.json} local-pods writes. A file that does not exist yet is read once it does.
   */
  public PrometheusServer scrapeFiles(String job, String glob) {
    scrapeConfigs.append("  - job_name: ").append(quote(job)).append('\n')
        .append("    file_sd_configs:\n")
        .append("      - files: [").append(quote(glob)).append("]\n")
        .append("        refresh_interval: 1s\n");
    return this;
  }

  /** Evaluates the rules of {@code file}. */
  public PrometheusServer ruleFile(Path file) {
    ruleFiles.add(file.toAbsolutePath());
    return this;
  }

  /**
   * Writes the configuration and starts Prometheus; returns once {@code /-/ready} answers.
   *
   * @throws IllegalStateException if it exits or is not ready within 60 s, with its log tail
   */
  public PrometheusServer start() {
    try {
      Files.createDirectories(dir.resolve("data"));
      Path config = dir.resolve("prometheus.yml");
      StringBuilder yaml = new StringBuilder()
          .append("global:\n")
          .append("  scrape_interval: ").append(seconds(interval)).append('\n')
          .append("  scrape_timeout: ").append(seconds(interval)).append('\n')
          .append("  evaluation_interval: ").append(seconds(interval)).append('\n')
          .append("rule_files:\n");
      ruleFiles.forEach(f -> yaml.append("  - ").append(quote(f.toString())).append('\n'));
      if (ruleFiles.isEmpty()) {
        yaml.setLength(yaml.length() - "rule_files:\n".length());
      }
      yaml.append("scrape_configs:\n").append(scrapeConfigs);
      Files.writeString(config, yaml);
      process = ManagedProcess.start("prometheus", List.of(
          ToolBinaries.prometheus("prometheus").toString(),
          "--config.file=" + config,
          "--storage.tsdb.path=" + dir.resolve("data"),
          "--web.listen-address=127.0.0.1:" + port,
          "--storage.tsdb.retention.time=1d"), Map.of());
      process.awaitReady("/-/ready", Duration.ofSeconds(60), () -> status("/-/ready") == 200);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the Prometheus configuration under " + dir, e);
    }
  }

  /** {@code http://127.0.0.1:<port>}. */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  /** {@code GET /api/v1/query?query=...} at the current time: the JSON answer. */
  public String query(String promql) {
    return get("/api/v1/query?query=" + encode(promql));
  }

  /** {@code GET /api/v1/query_range} from {@code start} to {@code end} every {@code step}. */
  public String queryRange(String promql, Instant start, Instant end, Duration step) {
    return get("/api/v1/query_range?query=" + encode(promql) + "&start=" + start.getEpochSecond()
        + "&end=" + end.getEpochSecond() + "&step=" + step.toSeconds());
  }

  /** {@code GET /api/v1/series?match[]=...} over the last hour. */
  public String series(String match) {
    return get("/api/v1/series?match[]=" + encode(match) + "&start="
        + Instant.now().minus(Duration.ofHours(1)).getEpochSecond());
  }

  /** {@code GET <path>} (e.g. {@code /api/v1/rules}, {@code /api/v1/targets}): the body. */
  public String get(String path) {
    try {
      HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url() + path))
          .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("Prometheus answered " + response.statusCode() + " to GET "
            + path + ": " + response.body());
      }
      return response.body();
    } catch (IOException e) {
      throw new UncheckedIOException("GET " + path + " on Prometheus failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during GET " + path, e);
    }
  }

  @Override
  public void close() {
    if (process != null) {
      process.kill();
    }
  }

  private int status(String path) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(url() + path))
          .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
