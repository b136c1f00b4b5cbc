package io.warmgate.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code redis-server} (the Valkey-compatible L2) on a free loopback port, without
 * persistence.
 *
 * <p>The port is chosen on the first {@link #start()} and kept for the life of the object, so a
 * {@link #stop()} / {@link #start()} cycle looks to clients like an outage and a recovery of the same
 * server (its data is gone). The process is killed by {@link #close()} or at JVM exit. Not
 * thread-safe: drive it from the test thread.
 */
public final class RedisServer implements ManagedService {

  private static final Logger LOG = LoggerFactory.getLogger(RedisServer.class);

  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(15);

  private final String password;
  private final boolean tls;
  private int port;
  private ManagedProcess process;
  private TestCertificates certificates;
  private SSLContext clientContext;

  private RedisServer(String password, boolean tls) {
    this.password = password;
    this.tls = tls;
  }

  /** Returns a server that accepts any client; call {@link #start()} to run it. */
  public static RedisServer create() {
    return new RedisServer(null, false);
  }

  /**
   * Returns a server that speaks only TLS, with a certificate for 127.0.0.1 and {@code localhost}
   * signed by a CA issued for it on the first {@link #start()} ({@link #tlsCertificates()}); it
   * does not ask clients for certificates. Call {@link #start()} to run it.
   */
  public static RedisServer withTls() {
    return new RedisServer(null, true);
  }

  /**
   * Returns a server that requires {@code AUTH password}; call {@link #start()} to run it.
   *
   * @throws IllegalArgumentException if the password is null or blank
   */
  public static RedisServer withPassword(String password) {
    if (password == null || password.isBlank()) {
      throw new IllegalArgumentException("password must not be blank, got '" + password + "'");
    }
    return new RedisServer(password, false);
  }

  /**
   * Starts the server (on the port of the previous run, if any) and returns once it answers PING.
   * Does nothing if it is running.
   *
   * @throws IllegalStateException if {@code redis-server} is missing (run {@code hack/prereqs.sh}),
   *     exits, or does not answer within 15 s; the message holds the tail of its log
   */
  @Override
  public void start() {
    if (isRunning()) {
      return;
    }
    stop();
    long startNanos = System.nanoTime();
    Path binary = Prerequisites.onPath("redis-server", Path.of("/usr/bin/redis-server"));
    if (port == 0) {
      port = FreePorts.next();
    } else if (FreePorts.isListening(port)) {
      throw new IllegalStateException("cannot restart redis-server: port " + port
          + " is now taken by another process");
    }
    Path dataDir = WarmgatePaths.processLogDir().resolve("redis-" + port);
    try {
      Files.createDirectories(dataDir);
    } catch (IOException e) {
      throw new IllegalStateException("cannot create " + dataDir, e);
    }
    List<String> command = new ArrayList<>(List.of(binary.toString(),
        "--port", Integer.toString(port),
        "--bind", "127.0.0.1",
        "--save", "",
        "--appendonly", "no",
        "--daemonize", "no",
        "--dir", dataDir.toString()));
    if (password != null) {
      command.addAll(List.of("--requirepass", password));
    }
    if (tls) {
      if (certificates == null) {
        certificates = TestCertificates.issue(dataDir.resolve("tls"));
      }
      // The TLS port replaces the plain one; the plain one is closed.
      command.set(command.indexOf("--port"), "--tls-port");
      command.addAll(List.of("--port", "0",
          "--tls-cert-file", certificates.serverCertificate().toString(),
          "--tls-key-file", certificates.serverKey().toString(),
          "--tls-ca-cert-file", certificates.caCertificate().toString(),
          "--tls-auth-clients", "no"));
    }
    ManagedProcess started = ManagedProcess.start("redis-" + port, command, Map.of());
    started.awaitReady("to answer PING on port " + port, STARTUP_TIMEOUT, this::answersPing);
    process = started;
    LOG.info("redis-server on {} ready in {} ms", uri(), (System.nanoTime() - startNanos) / 1_000_000);
  }

  /** Kills the server with SIGKILL (no shutdown, no save): clients see connections drop. */
  public void stop() {
    if (process != null) {
      process.kill();
      process = null;
    }
  }

  /** Same as {@link #stop()}; the object can be started again on the same port. */
  @Override
  public void close() {
    stop();
  }

  @Override
  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** Returns {@code 127.0.0.1}. */
  public String host() {
    return "127.0.0.1";
  }

  /**
   * Returns the port.
   *
   * @throws IllegalStateException if the server was never started
   */
  public int port() {
    if (port == 0) {
      throw new IllegalStateException("redis-server was never started: call start() first");
    }
    return port;
  }

  /**
   * Returns {@code redis://127.0.0.1:<port>} ({@code rediss://} with TLS), without credentials
   * (see {@link #password()}).
   */
  public String uri() {
    return (tls ? "rediss://" : "redis://") + host() + ":" + port();
  }

  /**
   * Returns the CA and certificate of a TLS server ({@link #withTls()}), issued on its first
   * start; empty for a plain server.
   */
  public Optional<TestCertificates> tlsCertificates() {
    return Optional.ofNullable(certificates);
  }

  /** Returns the password clients must send with {@code AUTH}, if one is required. */
  public Optional<String> password() {
    return Optional.ofNullable(password);
  }

  /**
   * Deletes every key with {@code FLUSHALL}.
   *
   * @throws IllegalStateException if the server is not running or refuses the command
   */
  public void flushAll() {
    try {
      Resp.call(port(), tlsContext(), password, "FLUSHALL");
    } catch (IOException e) {
      throw new IllegalStateException("FLUSHALL failed on " + uri() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Returns the commands the server processed since it started ({@code total_commands_processed}
   * of {@code INFO stats}; the INFO of this call included).
   *
   * @throws IllegalStateException if the server is not running or refuses the command
   */
  public long commandsProcessed() {
    try {
      String info = String.valueOf(Resp.call(port(), tlsContext(), password, "INFO", "stats"));
      for (String line : info.split("\r?\n")) {
        if (line.startsWith("total_commands_processed:")) {
          return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
        }
      }
      throw new IllegalStateException("INFO stats of " + uri()
          + " has no total_commands_processed line: " + info);
    } catch (IOException e) {
      throw new IllegalStateException("INFO stats failed on " + uri() + ": " + e.getMessage(), e);
    }
  }

  private boolean answersPing() {
    try {
      return "PONG".equals(Resp.call(port, tlsContext(), password, "PING"));
    } catch (IOException e) {
      return false;
    }
  }

  private SSLContext tlsContext() {
    if (certificates == null) {
      return null;
    }
    if (clientContext == null) {
      clientContext = certificates.clientContext();
    }
    return clientContext;
  }

  @Override
  public String toString() {
    return "RedisServer[" + (port == 0 ? "not started" : uri()) + (isRunning() ? "" : ", stopped") + "]";
  }
}
