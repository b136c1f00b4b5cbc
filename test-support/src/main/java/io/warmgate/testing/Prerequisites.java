package io.warmgate.testing;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the executables the tests run and fails with a message that says how to install them. */
final class Prerequisites {

  static final String FIX = "run hack/prereqs.sh";

  private Prerequisites() {
  }

  /**
   * Returns {@code path} if it is an executable file.
   *
   * @throws IllegalStateException naming {@code what}, the path and {@code hack/prereqs.sh} otherwise
   */
  static Path executable(Path path, String what) {
    if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
      throw new IllegalStateException(what + " not found at " + path + ": " + FIX
          + " (binary cache: " + WarmgatePaths.cacheDir() + ")");
    }
    return path;
  }

  /**
   * Returns the first executable named {@code name} on {@code PATH}, else the first executable
   * fallback.
   *
   * @throws IllegalStateException naming the executable and {@code hack/prereqs.sh} if none exists
   */
  static Path onPath(String name, Path... fallbacks) {
    String searchPath = System.getenv().getOrDefault("PATH", "");
    for (String dir : searchPath.split(File.pathSeparator)) {
      if (!dir.isEmpty()) {
        Path candidate = Path.of(dir, name);
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    for (Path fallback : fallbacks) {
      if (Files.isRegularFile(fallback) && Files.isExecutable(fallback)) {
        return fallback;
      }
    }
    throw new IllegalStateException(name + " not found on PATH: " + FIX);
  }
}
