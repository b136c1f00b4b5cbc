package io.warmgate.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The CRD checked in under crds/ is the one the model classes generate. */
class CrdDriftTest {

  static final String CRD_FILE = "cachepolicies.warmgate.io-v1.yml";
  static final String REGENERATE = "hack/verify-generated.sh --update";

  @Test
  void checkedInCrdMatchesTheModel() throws IOException {
    String generated = generatedCrd();
    Path checkedIn = checkedInCrd();
    assertThat(checkedIn)
        .withFailMessage("%s is missing; generate it with: %s", checkedIn, REGENERATE)
        .exists();
    assertThat(Files.readString(checkedIn, StandardCharsets.UTF_8))
        .withFailMessage("%s is out of date with the model classes in io.warmgate.operator.model;"
            + " regenerate it with: %s", checkedIn, REGENERATE)
        .isEqualTo(generated);
  }

  /** The CRD the crd-generator-maven-plugin wrote into target/classes. */
  static String generatedCrd() throws IOException {
    try (InputStream in = CrdDriftTest.class.getResourceAsStream("/META-INF/fabric8/" + CRD_FILE)) {
      assertThat(in).withFailMessage("META-INF/fabric8/%s was not generated; run: mvn -pl "
          + "operator process-classes", CRD_FILE).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** crds/ at the repository root. */
  static Path checkedInCrd() {
    String dir = System.getProperty("warmgate.crds.dir");
    Path crds = dir != null ? Path.of(dir) : Path.of("..", "crds");
    return crds.resolve(CRD_FILE);
  }
}
