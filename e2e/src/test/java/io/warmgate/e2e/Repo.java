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

  /** The runtime classpath of a module built in this reactor; see {@link WarmgatePaths#moduleClasspath}. */
  static String moduleClasspath(String module) {
    return WarmgatePaths.moduleClasspath(module);
  }

  static String manifest(String path) {
    try {
      return Files.readString(dir().resolve(path));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
