package io.warmgate.operator.chart;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.operator.testing.ApiServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The chart ships exactly the CRDs checked in under crds/. */
class ChartCrdDriftTest {

  static final String UPDATE = "hack/verify-generated.sh --update";

  @Test
  void chartCrdsEqualTheCheckedInCrds() throws IOException {
    Path crds = ApiServer.repoDir().resolve("crds");
    Path chartCrds = ApiServer.repoDir().resolve("charts/warmgate/crds");

    assertThat(names(chartCrds)).withFailMessage("%s holds %s but crds/ holds %s; copy them with: "
        + "%s", chartCrds, names(chartCrds), names(crds), UPDATE).isEqualTo(names(crds));
    for (String name : names(crds)) {
      assertThat(Files.readString(chartCrds.resolve(name)))
          .withFailMessage("%s differs from crds/%s; copy it with: %s", chartCrds.resolve(name),
              name, UPDATE)
          .isEqualTo(Files.readString(crds.resolve(name)));
    }
  }

  private static List<String> names(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yml")
          || n.endsWith(".yaml")).sorted().toList();
    }
  }
}
