package io.warmgate.testing;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Spanner;

/**
 * Runs a {@link SpannerEmulator} for a test class:
 * {@code @RegisterExtension static final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();}.
 *
 * <p>A {@code static} field gives one emulator per class, an instance field one per test. A test
 * that {@link #stop() stops} the emulator finds it running again (same port, empty databases with
 * the schema) in the next test. Tests that need isolation from each other's rows call
 * {@link #createDatabase(String)}.
 */
public final class SpannerEmulatorExtension extends ServiceExtension {

  private final SpannerEmulator emulator;

  /** Creates an extension whose default database is {@value SpannerEmulator#DEFAULT_DATABASE_ID}. */
  public SpannerEmulatorExtension() {
    this(SpannerEmulator.create());
  }

  private SpannerEmulatorExtension(SpannerEmulator emulator) {
    super(emulator);
    this.emulator = emulator;
  }

  /**
   * Creates an extension whose default database is {@code databaseId}.
   *
   * @throws IllegalArgumentException if the name is not a valid Spanner database id
   */
  public static SpannerEmulatorExtension withDatabase(String databaseId) {
    return new SpannerEmulatorExtension(SpannerEmulator.withDatabase(databaseId));
  }

  /** Returns the emulator this extension runs. */
  public SpannerEmulator emulator() {
    return emulator;
  }

  /** See {@link SpannerEmulator#emulatorHost()}. */
  public String emulatorHost() {
    return emulator.emulatorHost();
  }

  /** See {@link SpannerEmulator#projectId()}. */
  public String projectId() {
    return emulator.projectId();
  }

  /** See {@link SpannerEmulator#instanceId()}. */
  public String instanceId() {
    return emulator.instanceId();
  }

  /** See {@link SpannerEmulator#databaseId()}. */
  public String databaseId() {
    return emulator.databaseId();
  }

  /** See {@link SpannerEmulator#spanner()}. */
  public Spanner spanner() {
    return emulator.spanner();
  }

  /** See {@link SpannerEmulator#databaseClient()}. */
  public DatabaseClient databaseClient() {
    return emulator.databaseClient();
  }

  /** See {@link SpannerEmulator#databaseClient(String)}. */
  public DatabaseClient databaseClient(String name) {
    return emulator.databaseClient(name);
  }

  /** See {@link SpannerEmulator#createDatabase(String)}. */
  public DatabaseClient createDatabase(String name) {
    return emulator.createDatabase(name);
  }

  /** See {@link SpannerEmulator#stop()}. */
  public void stop() {
    emulator.stop();
  }

  /** See {@link SpannerEmulator#start()}. */
  public void start() {
    emulator.start();
  }

  /** See {@link SpannerEmulator#freeze()}. */
  public void freeze() {
    emulator.freeze();
  }

  /** See {@link SpannerEmulator#thaw()}. */
  public void thaw() {
    emulator.thaw();
  }

  /** See {@link SpannerEmulator#isRunning()}. */
  public boolean isRunning() {
    return emulator.isRunning();
  }
}
