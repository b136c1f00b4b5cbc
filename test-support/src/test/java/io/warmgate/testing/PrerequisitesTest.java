package io.warmgate.testing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class PrerequisitesTest {

  @Test
  void missingBinaryNamesItsPathAndTheFix() {
    Path missing = Path.of("/nonexistent/kube-apiserver");

    assertThatThrownBy(() -> Prerequisites.executable(missing, "kube-apiserver"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("kube-apiserver not found at /nonexistent/kube-apiserver")
        .hasMessageContaining("run hack/prereqs.sh");
  }

  @Test
  void missingCommandNamesPathAndTheFix() {
    assertThatThrownBy(() -> Prerequisites.onPath("warmgate-no-such-command"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("warmgate-no-such-command not found on PATH: run hack/prereqs.sh");
  }
}
