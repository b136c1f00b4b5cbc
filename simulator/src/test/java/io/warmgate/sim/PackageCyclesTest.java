package io.warmgate.sim;

import io.warmgate.testing.PackageCycles;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** No package of the module's main code uses a package that uses it. */
class PackageCyclesTest {

  @Test
  void theMainCodeHasNoPackageCycle() {
    PackageCycles.assertNone(Path.of("src/main/java"), "io.warmgate.sim");
  }
}
