package io.warmgate.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Locates the directories the test infrastructure works with: the repository root, the binary cache
 * filled by {@code hack/prereqs.sh}, and the per-module directory receiving process logs.
 *
 * <p>Every method resolves its answer on each call (system properties may change between test
 * classes) and never creates anything except {@link #processLogDir()}.
 */
public final class WarmgatePaths {

  /** System property naming the repository root; failsafe sets it from the parent pom. */
  public static final String REPO_DIR_PROPERTY = "warmgate.repo.dir";
  /** System property naming the binary cache; failsafe sets it from the parent pom. */
  public static final String CACHE_DIR_PROPERTY = "warmgate.cache.dir";
  /** Environment variable naming the binary cache, as read by {@code hack/lib.sh}. */
  public static final String CACHE_DIR_ENV = "WARMGATE_CACHE_DIR";

  private static final String MARKER = "examples/spanner/schema.sql";

  private WarmgatePaths() {
  }

  /**
   * Returns the repository root: {@code -Dwarmgate.repo.dir} when set, else the nearest ancestor of
   * the working directory that contains {@code examples/spanner/schema.sql}.
   *
   * @throws IllegalStateException if neither names a directory containing that file
   */
  public static Path repoDir() {
    String configured = System.getProperty(REPO_DIR_PROPERTY);
    if (configured != null && !configured.isBlank()) {
      Path dir = Path.of(configured).toAbsolutePath().normalize();
      if (Files.isRegularFile(dir.resolve(MARKER))) {
        return dir;
      }
      throw new IllegalStateException("-D" + REPO_DIR_PROPERTY + "=" + configured
          + " does not contain " + MARKER + ": point it at the warmgate repository root");
    }
    Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath().normalize();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve(MARKER))) {
        return dir;
      }
    }
    throw new IllegalStateException("no " + MARKER + " in " + start + " or any parent directory: run"
        + " the tests from inside the warmgate repository or set -D" + REPO_DIR_PROPERTY);
  }

  /**
   * Returns the binary cache: {@code -Dwarmgate.cache.dir}, else {@code $WARMGATE_CACHE_DIR}, else
   * {@code ~/.cache/warmgate} (the same default as {@code hack/lib.sh}).
   */
  public static Path cacheDir() {
    String configured = System.getProperty(CACHE_DIR_PROPERTY);
    if (configured == null || configured.isBlank()) {
      configured = System.getenv(CACHE_DIR_ENV);
    }
    if (configured == null || configured.isBlank()) {
      return Path.of(System.getProperty("user.home"), ".cache", "warmgate");
    }
    return Path.of(configured).toAbsolutePath().normalize();
  }

  /**
   * Returns the runtime classpath of a module built in this repository: its {@code target/classes}
   * followed by the {@code target/classpath.txt} that the module's {@code package} phase writes.
   *
   * @param module the module's directory relative to the root, e.g. {@code operator}
   * @throws IllegalStateException naming the module when it is not packaged
   */
  public static String moduleClasspath(String module) {
    Path target = repoDir().resolve(module).resolve("target");
    Path file = target.resolve("classpath.txt");
    if (!Files.exists(file)) {
      throw new IllegalStateException(module + " is not packaged (" + file + " is missing): run "
          + "mvn -pl " + module + " -am package -DskipTests from the repository root");
    }
    try {
      return target.resolve("classes") + File.pathSeparator + Files.readString(file).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /**
   * Returns {@code target/test-processes} under the working directory (the Maven module under test),
   * creating it if needed; every started process writes its stdout and stderr there.
   */
  public static Path processLogDir() {
    Path dir = Path.of(System.getProperty("user.dir"), "target", "test-processes").toAbsolutePath();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create process log directory " + dir, e);
    }
    return dir;
  }
}
