package io.warmgate.operator.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.warmgate.operator.testing.ApiServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * hack/image.sh: its refusals of bad options, and one real image tarball (the stream gateway's,
 * the chart image with the fewest modules to build) opened and checked against its pom and the
 * chart's values. The build runs on a copy of the sources without target/ directories and
 * without compiling tests, so it never rewrites the classes of the build that runs this test
 * (about a minute on two cores). It is not offline: on a new machine the first run fetches the
 * Jib plugin, which no other goal of the build uses.
 */
class ImageScriptIT {

  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void refusesBadOptionsNamingTheValueAndTheFix(@TempDir Path tmp) throws Exception {
    Path root = ApiServer.repoDir();
    assertThat(run(root, "--tar", tmp.toString(), "--bogus"))
        .satisfies(r -> assertThat(r.code).isNotZero())
        .satisfies(r -> assertThat(r.output).contains("unknown option '--bogus'", "--help"));
    assertThat(run(root, "--tar"))
        .satisfies(r -> assertThat(r.code).isNotZero())
        .satisfies(r -> assertThat(r.output).contains("--tar needs a value", "--tar target/images"));
    assertThat(run(root, "--tar", "--only", "operator"))
        .satisfies(r -> assertThat(r.output).contains("--tar needs a value"));
    assertThat(run(root, "--docker", "--only", "operator,gateway"))
        .satisfies(r -> assertThat(r.code).isNotZero())
        .satisfies(r -> assertThat(r.output).contains("unknown image 'gateway'",
            "operator deal-service stream-gateway"));
    assertThat(run(root, "--docker", "--tar", tmp.toString()))
        .satisfies(r -> assertThat(r.output).contains("--docker and --tar both given"));
    assertThat(run(root, "--registry", "registry.example.com/team:1"))
        .satisfies(r -> assertThat(r.output).contains("ends in a tag", "--tag"));
    assertThat(run(root, "--docker", "--tag", "a:b"))
        .satisfies(r -> assertThat(r.output).contains("--tag 'a:b' is not an image tag"));
    assertThat(run(root))
        .satisfies(r -> assertThat(r.code).isNotZero())
        .satisfies(r -> assertThat(r.output).contains("--registry PREFIX, --tar DIR or --docker"));
    assertThat(run(root, "--help"))
        .satisfies(r -> assertThat(r.code).isZero())
        .satisfies(r -> assertThat(r.output).contains("Usage: hack/image.sh", "--only LIST"));
    assertThat(tmp).isEmptyDirectory();
  }

  @Test
  void writesTheStreamGatewayImageTheChartNames(@TempDir Path tmp) throws Exception {
    Path copy = tmp.resolve("src");
    copySources(ApiServer.repoDir(), copy);
    Path images = tmp.resolve("images");

    Result result = run(copy, Map.of("MVN_ARGS", "-Dmaven.test.skip=true"),
        "--tar", images.toString(), "--base", "scratch", "--only", "stream-gateway",
        "--tag", "test-1");

    assertThat(result.code).as(result.output).isZero();
    Path tarball = images.resolve("warmgate-stream-gateway.tar");
    assertThat(result.output).contains(
        "warmgate/warmgate-stream-gateway:test-1  " + tarball,
        "--set streamGateway.image.repository=warmgate/warmgate-stream-gateway",
        "--set streamGateway.image.tag=test-1");
    try (Stream<Path> files = Files.list(images)) {
      assertThat(files).containsExactly(tarball);
    }
    assertThat(Files.readString(ApiServer.repoDir().resolve("charts/warmgate/values.yaml")))
        .contains("repository: warmgate/warmgate-stream-gateway");

    Map<String, byte[]> image = untar(Files.newInputStream(tarball));
    JsonNode manifest = JSON.readTree(image.get("manifest.json")).get(0);
    assertThat(manifest.get("RepoTags").get(0).asText())
        .isEqualTo("warmgate/warmgate-stream-gateway:test-1");
    JsonNode config = JSON.readTree(image.get(manifest.get("Config").asText())).get("config");
    assertThat(config.get("Entrypoint").toString()).endsWith("\"io.warmgate.gateway.GatewayMain\"]");
    assertThat(config.get("ExposedPorts").has("8080/tcp")).isTrue();
    assertThat(config.get("User").asText()).isEqualTo("65532");

    List<String> files = new ArrayList<>();
    for (JsonNode layer : manifest.get("Layers")) {
      files.addAll(untar(new GZIPInputStream(
          new ByteArrayInputStream(image.get(layer.asText())))).keySet());
    }
    assertThat(files).contains("app/classes/io/warmgate/gateway/GatewayMain.class",
        "app/libs/warmgate-valkey-client-0.1.0-SNAPSHOT.jar", "app/jib-classpath-file");
  }

  record Result(int code, String output) {}

  static Result run(Path root, String... args) throws Exception {
    return run(root, Map.of(), args);
  }

  static Result run(Path root, Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", root.resolve("hack/image.sh").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile())
        .redirectErrorStream(true);
    builder.environment().putAll(env);
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(5, TimeUnit.MINUTES)).as(output).isTrue();
    return new Result(process.exitValue(), output);
  }

  /** The sources without build output: what a fresh checkout has. */
  static void copySources(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path path : (Iterable<Path>) paths::iterator) {
        Path relative = from.relativize(path);
        if (skipped(relative)) {
          continue;
        }
        Path target = to.resolve(relative.toString());
        if (Files.isDirectory(path)) {
          Files.createDirectories(target);
        } else if (Files.isRegularFile(path)) {
          Files.copy(path, target);
        }
      }
    }
  }

  static boolean skipped(Path relative) {
    for (Path part : relative) {
      String name = part.toString();
      if (name.equals("target") || name.equals(".git") || name.equals(".warmgate")) {
        return true;
      }
    }
    return false;
  }

  /** The regular files of a tar stream by name (ustar and PAX path records, as Jib writes). */
  static Map<String, byte[]> untar(InputStream in) throws IOException {
    Map<String, byte[]> files = new LinkedHashMap<>();
    try (in) {
      String paxPath = null;
      while (true) {
        byte[] header = in.readNBytes(512);
        if (header.length < 512 || header[0] == 0) {
          return files;
        }
        String name = field(header, 0, 100);
        String prefix = field(header, 345, 155);
        long size = Long.parseLong(field(header, 124, 12).trim(), 8);
        char type = (char) header[156];
        byte[] data = in.readNBytes((int) size);
        in.skipNBytes((512 - size % 512) % 512);
        if (type == 'x') {
          for (String record : new String(data, StandardCharsets.UTF_8).split("\n")) {
            String keyValue = record.substring(record.indexOf(' ') + 1);
            if (keyValue.startsWith("path=")) {
              paxPath = keyValue.substring("path=".length());
            }
          }
          continue;
        }
        String path = paxPath != null ? paxPath : prefix.isEmpty() ? name : prefix + "/" + name;
        paxPath = null;
        if (type == '0' || type == 0) {
          files.put(path, data);
        }
      }
    }
  }

  static String field(byte[] header, int offset, int length) {
    int end = offset;
    while (end < offset + length && header[end] != 0) {
      end++;
    }
    return new String(header, offset, end - offset, StandardCharsets.UTF_8);
  }
}
