package io.warmgate.testing;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.InstanceConfigId;
import com.google.cloud.spanner.InstanceId;
import com.google.cloud.spanner.InstanceInfo;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Cloud Spanner emulator (gRPC only) on a free loopback port, with project
 * {@value #PROJECT_ID}, instance {@value #INSTANCE_ID} and a database that holds
 * {@code examples/spanner/schema.sql}.
 *
 * <p>The emulator keeps everything in memory. {@link #stop()} kills it (SIGKILL: an origin
 * outage); {@link #start()} runs it again on the same port and re-creates the instance and every
 * database created so far, empty, with the schema applied. The process is killed by {@link #close()}
 * or at JVM exit. Not thread-safe: drive it from the test thread; the clients it hands out are
 * thread-safe.
 */
public final class SpannerEmulator implements ManagedService {

  private static final Logger LOG = LoggerFactory.getLogger(SpannerEmulator.class);

  /** The emulator's project. */
  public static final String PROJECT_ID = "warmgate-test";
  /** The emulator's instance. */
  public static final String INSTANCE_ID = "test-instance";
  /** The database created at start-up unless another name is given. */
  public static final String DEFAULT_DATABASE_ID = "deals";
  /** Where the Debian google-cloud-sdk package installs the emulator. */
  public static final Path EMULATOR_BINARY =
      Path.of("/usr/lib/google-cloud-sdk/bin/cloud_spanner_emulator/emulator_main");

  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);
  private static final long ADMIN_TIMEOUT_SECONDS = 60;

  private final String databaseId;
  private final Set<String> databases = new LinkedHashSet<>();
  private int port;
  private ManagedProcess process;
  private Spanner spanner;

  private SpannerEmulator(String databaseId) {
    this.databaseId = requireValidDatabaseId(databaseId);
    this.databases.add(databaseId);
  }

  /** Returns an emulator whose default database is {@value #DEFAULT_DATABASE_ID}; call {@link #start()}. */
  public static SpannerEmulator create() {
    return new SpannerEmulator(DEFAULT_DATABASE_ID);
  }

  /**
   * Returns an emulator whose default database is {@code databaseId}; call {@link #start()}.
   *
   * @throws IllegalArgumentException if the name is not a valid Spanner database id
   */
  public static SpannerEmulator withDatabase(String databaseId) {
    return new SpannerEmulator(databaseId);
  }

  /**
   * Starts the emulator (on the port of the previous run, if any), creates the instance and the
   * databases with the schema, and returns when they are ready. Does nothing if it is running.
   *
   * @throws IllegalStateException if the emulator is missing (run {@code hack/prereqs.sh}), exits,
   *     does not listen within 30 s, or refuses the schema; the message says which
   */
  @Override
  public void start() {
    if (isRunning()) {
      return;
    }
    stop();
    long startNanos = System.nanoTime();
    Path binary = Prerequisites.executable(EMULATOR_BINARY, "Cloud Spanner emulator");
    List<String> schema = schemaStatements();
    if (port == 0) {
      port = FreePorts.next();
    } else if (FreePorts.isListening(port)) {
      throw new IllegalStateException("cannot restart the Spanner emulator: port " + port
          + " is now taken by another process");
    }
    ManagedProcess started = ManagedProcess.start("spanner-emulator-" + port,
        List.of(binary.toString(), "--host_port", emulatorHostFor(port)), Map.of());
    started.awaitReady("to listen on " + emulatorHostFor(port), STARTUP_TIMEOUT,
        () -> FreePorts.isListening(port));
    process = started;
    long listeningNanos = System.nanoTime();
    try {
      if (spanner != null && spanner.getOptions().getSessionPoolOptions().getUseMultiplexedSession()) {
        LOG.warn("Spanner clients obtained before the restart of {} are closed: the emulator forgot"
            + " their multiplexed sessions. Set GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS=false in"
            + " the test environment to keep them working across restarts.", emulatorHost());
        closeInBackground(spanner);
        spanner = null;
      }
      if (spanner == null) {
        spanner = SpannerOptions.newBuilder()
            .setProjectId(PROJECT_ID)
            .setEmulatorHost(emulatorHost())
            .setCredentials(NoCredentials.getInstance())
            .build()
            .getService();
      }
      createInstance();
      for (String database : databases) {
        createDatabaseWithSchema(database, schema);
      }
    } catch (RuntimeException e) {
      stop();
      throw e;
    }
    LOG.info("Spanner emulator on {} ready in {} ms (listening after {} ms, databases {})",
        emulatorHost(), (System.nanoTime() - startNanos) / 1_000_000,
        (listeningNanos - startNanos) / 1_000_000, databases);
  }

  /** Kills the emulator with SIGKILL: clients see {@code UNAVAILABLE} until {@link #start()}. */
  public void stop() {
    if (process != null) {
      process.kill();
      process = null;
    }
  }

  /**
   * Freezes the emulator with SIGSTOP: an origin that stops answering while its connections stay
   * open, so reads fail at their deadline. Unlike {@link #stop()} it keeps every row;
   * {@link #thaw()} resumes it.
   *
   * @throws IllegalStateException if the emulator is not running or the signal cannot be sent
   */
  public void freeze() {
    signal("STOP");
  }

  /**
   * Resumes an emulator {@link #freeze() frozen} before (SIGCONT); it answers with the data it
   * held.
   *
   * @throws IllegalStateException if the emulator is not running or the signal cannot be sent
   */
  public void thaw() {
    signal("CONT");
  }

  private void signal(String signal) {
    if (!isRunning()) {
      throw new IllegalStateException("the Spanner emulator is not running: cannot send SIG" + signal);
    }
    String pid = Long.toString(process.pid());
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, pid).redirectErrorStream(true).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid + " failed: "
            + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill -" + signal + " " + pid, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted sending SIG" + signal + " to " + pid, e);
    }
    LOG.info("Spanner emulator on {}: SIG{} sent to pid {}", emulatorHost(), signal, pid);
  }

  /** Kills the emulator and closes the {@link #spanner()} client. Idempotent. */
  @Override
  public void close() {
    if (spanner != null) {
      if (isRunning()) {
        spanner.close();
      } else {
        closeInBackground(spanner);
      }
      spanner = null;
    }
    stop();
  }

  /** Closes a client whose sessions the emulator no longer has: that waits ~30 s, not on our time. */
  private static void closeInBackground(Spanner client) {
    Thread closer = new Thread(client::close, "spanner-emulator-client-close");
    closer.setDaemon(true);
    closer.start();
  }

  @Override
  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  /**
   * Returns {@code 127.0.0.1:<port>}, the value for {@code SPANNER_EMULATOR_HOST} and
   * {@link SpannerOptions.Builder#setEmulatorHost(String)}.
   *
   * @throws IllegalStateException if the emulator was never started
   */
  public String emulatorHost() {
    if (port == 0) {
      throw new IllegalStateException("the Spanner emulator was never started: call start() first");
    }
    return emulatorHostFor(port);
  }

  /** Returns {@value #PROJECT_ID}. */
  public String projectId() {
    return PROJECT_ID;
  }

  /** Returns {@value #INSTANCE_ID}. */
  public String instanceId() {
    return INSTANCE_ID;
  }

  /** Returns the default database id (the one {@link #databaseClient()} reads). */
  public String databaseId() {
    return databaseId;
  }

  /**
   * Returns a client of the emulator without credentials; closed by {@link #close()}, so callers
   * must not close it.
   *
   * @throws IllegalStateException if the emulator is not started
   */
  public Spanner spanner() {
    if (spanner == null) {
      throw new IllegalStateException("the Spanner emulator is not started: call start() first");
    }
    return spanner;
  }

  /** Returns a client of the default database. */
  public DatabaseClient databaseClient() {
    return databaseClient(databaseId);
  }

  /** Returns a client of database {@code name} (which must have been created). */
  public DatabaseClient databaseClient(String name) {
    return spanner().getDatabaseClient(DatabaseId.of(PROJECT_ID, INSTANCE_ID, name));
  }

  /**
   * Creates database {@code name} with the schema applied and returns its client; the database is
   * re-created on every later {@link #start()}.
   *
   * @throws IllegalArgumentException if the name is not a valid Spanner database id
   * @throws IllegalStateException if the emulator is not running or the database exists
   */
  public DatabaseClient createDatabase(String name) {
    requireValidDatabaseId(name);
    if (!isRunning()) {
      throw new IllegalStateException("the Spanner emulator is not running: call start() first");
    }
    if (databases.contains(name)) {
      throw new IllegalStateException("database " + name + " already exists: pick another name");
    }
    createDatabaseWithSchema(name, schemaStatements());
    databases.add(name);
    return databaseClient(name);
  }

  /**
   * Returns the DDL statements of {@code examples/spanner/schema.sql}, comments removed, one
   * statement per element.
   *
   * @throws IllegalStateException if the repository root cannot be found
   * @throws UncheckedIOException if the file cannot be read
   */
  public static List<String> schemaStatements() {
    Path file = WarmgatePaths.repoDir().resolve("examples/spanner/schema.sql");
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    return splitStatements(text);
  }

  /**
   * Splits a SQL script such as {@code examples/spanner/seed.sql} into its statements: {@code --}
   * comments removed, split at {@code ;}, blank ones dropped.
   */
  public static List<String> splitStatements(String sql) {
    StringBuilder withoutComments = new StringBuilder();
    for (String line : sql.split("\n", -1)) {
      int comment = line.indexOf("--");
      withoutComments.append(comment < 0 ? line : line.substring(0, comment)).append('\n');
    }
    List<String> statements = new ArrayList<>();
    for (String statement : withoutComments.toString().split(";")) {
      if (!statement.isBlank()) {
        statements.add(statement.strip());
      }
    }
    return statements;
  }

  private void createInstance() {
    InstanceInfo instance = InstanceInfo.newBuilder(InstanceId.of(PROJECT_ID, INSTANCE_ID))
        .setInstanceConfigId(InstanceConfigId.of(PROJECT_ID, "emulator-config"))
        .setDisplayName(INSTANCE_ID)
        .setNodeCount(1)
        .build();
    await("create instance " + INSTANCE_ID,
        () -> spanner.getInstanceAdminClient().createInstance(instance).get(
            ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS));
  }

  private void createDatabaseWithSchema(String name, List<String> schema) {
    await("create database " + name + " with examples/spanner/schema.sql",
        () -> spanner.getDatabaseAdminClient().createDatabase(INSTANCE_ID, name, schema).get(
            ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS));
  }

  private interface AdminCall {
    void run() throws InterruptedException, ExecutionException, TimeoutException;
  }

  private void await(String what, AdminCall call) {
    try {
      call.run();
    } catch (ExecutionException e) {
      throw new IllegalStateException("Spanner emulator at " + emulatorHost() + " failed to " + what
          + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("Spanner emulator at " + emulatorHost() + " did not " + what
          + " within " + ADMIN_TIMEOUT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting to " + what, e);
    }
  }

  private static String requireValidDatabaseId(String name) {
    if (name == null || !name.matches("[a-z][a-z0-9_\\-]{0,28}[a-z0-9]")) {
      throw new IllegalArgumentException("'" + name + "' is not a Spanner database id: use 2-30"
          + " characters [a-z0-9_-], starting with a letter and not ending with '_' or '-'");
    }
    return name;
  }

  private static String emulatorHostFor(int port) {
    return "127.0.0.1:" + port;
  }

  @Override
  public String toString() {
    return "SpannerEmulator[" + (port == 0 ? "not started" : emulatorHost()) + (isRunning() ? "" : ", stopped") + "]";
  }
}
