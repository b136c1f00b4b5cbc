package io.warmgate.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The model is the API: it never depends on operator code, so clients can use it alone. It may
 * use the dependency-free contract (duration grammar, key space version rule) it shares with the
 * agent.
 */
class ModelIsolationTest {

  private static final Pattern OPERATOR_IMPORT =
      Pattern.compile("^import\\s+(static\\s+)?io\\.warmgate\\.(?!operator\\.model\\.|contract\\.)",
          Pattern.MULTILINE);
  private static final Pattern JOSDK_IMPORT =
      Pattern.compile("^import\\s+(static\\s+)?io\\.javaoperatorsdk\\.", Pattern.MULTILINE);

  @Test
  void modelImportsNoOperatorCode() throws IOException {
    Path model = Path.of("src/main/java/io/warmgate/operator/model");
    List<String> offenders;
    try (Stream<Path> files = Files.list(model)) {
      offenders = files.filter(f -> f.toString().endsWith(".java")).filter(f -> {
        try {
          String source = Files.readString(f);
          return OPERATOR_IMPORT.matcher(source).find() || JOSDK_IMPORT.matcher(source).find();
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      }).map(Path::toString).toList();
    }
    assertThat(offenders)
        .withFailMessage("these model classes import operator or JOSDK code; move the logic out "
            + "of io.warmgate.operator.model: %s", offenders)
        .isEmpty();
  }
}
