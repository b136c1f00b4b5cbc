package io.warmgate.operator.testing;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * A folder of CachePolicy YAML files on the test class path, each stating in a {@code # rejects: }
 * line what the API server must answer when it is created.
 */
public final class RejectCorpus {

  private static final String REJECTS = "# rejects: ";

  private RejectCorpus() {}

  /**
   * The {@code .yaml} files of class-path folder {@code folder} (such as
   * {@code /invalid-policies}), sorted by name.
   */
  public static Stream<Path> files(String folder) throws IOException, URISyntaxException {
    Path dir = Path.of(RejectCorpus.class.getResource(folder).toURI());
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList().stream();
    }
  }

  /**
   * What the first {@code # rejects: } line of {@code yaml}, read from {@code file}, says.
   *
   * @throws IllegalStateException if there is no such line
   */
  public static String rejects(Path file, String yaml) {
    return yaml.lines().filter(l -> l.startsWith(REJECTS)).findFirst()
        .map(l -> l.substring(REJECTS.length()))
        .orElseThrow(() -> new IllegalStateException(file + " lacks a '# rejects: ' line"));
  }
}
