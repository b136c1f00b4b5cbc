package io.warmgate.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
  private int port;
  private ManagedProcess process;

  private RedisServer(String password) {
    this.password = password;
  }

  /** Returns a server that accepts any client; call {@link #start()} to run it. */
  public static RedisServer create() {
    return new RedisServer(null);
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
    return new RedisServer(password);
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

  /** Returns {@code redis://127.0.0.1:<port>}, without credentials (see {@link #password()}). */
  public String uri() {
    return "redis://" + host() + ":" + port();
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
    String reply;
    try {
      reply = command("FLUSHALL");
    } catch (IOException e) {
      throw new IllegalStateException("FLUSHALL failed on " + uri() + ": " + e.getMessage(), e);
    }
    if (!reply.startsWith("+OK")) {
      throw new IllegalStateException("FLUSHALL refused by " + uri() + ": " + reply);
    }
  }

  private boolean answersPing() {
    try {
      return command("PING").startsWith("+PONG");
    } catch (IOException e) {
      return false;
    }
  }

  /** Sends one command (after AUTH, if needed) on a new connection and returns its first reply line. */
  private String command(String name) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      socket.setSoTimeout(5_000);
      OutputStream out = socket.getOutputStream();
      BufferedReader in = new BufferedReader(
          new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      if (password != null) {
        out.write(resp("AUTH", password));
        out.flush();
        String auth = in.readLine();
        if (auth == null || !auth.startsWith("+OK")) {
          throw new IOException("AUTH refused: " + auth);
        }
      }
      out.write(resp(name));
      out.flush();
      String reply = in.readLine();
      if (reply == null) {
        throw new IOException("connection closed before a reply to " + name);
      }
      return reply;
    }
  }

  private static byte[] resp(String... args) {
    StringBuilder text = new StringBuilder("*").append(args.length).append("\r\n");
    for (String arg : args) {
      byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
      text.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "RedisServer[" + (port == 0 ? "not started" : uri()) + (isRunning() ? "" : ", stopped") + "]";
  }
}
