package io.warmgate.e2e;

import io.warmgate.testing.WarmgatePaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Paths of the built modules whose processes the tests start. */
final class Repo {

  private Repo() {}

  static Path dir() {
    return WarmgatePaths.repoDir();
  }

  /**
   * The runtime classpath of a module built in this reactor (its classes + target/classpath.txt).
   *
   * @throws IllegalStateException naming the module when it is not built
   */
  static String moduleClasspath(String module) {
    Path target = dir().resolve(module).resolve("target");
    Path file = target.resolve("classpath.txt");
    if (!Files.exists(file)) {
      throw new IllegalStateException(module + " is not packaged (" + file + " is missing): run "
          + "mvn -Pe2e verify from the repository root, which packages it before this module");
    }
    try {
      return target.resolve("classes") + java.io.File.pathSeparator + Files.readString(file).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String manifest(String path) {
    try {
      return Files.readString(dir().resolve(path));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
