package io.warmgate.testing;

import java.util.Optional;

/**
 * Runs a {@link RedisServer} for a test class:
 * {@code @RegisterExtension static final RedisExtension redis = new RedisExtension();}.
 *
 * <p>A {@code static} field gives one server per class, an instance field one per test. A test that
 * {@link #stop() stops} the server finds it running again (same port, empty) in the next test.
 */
public final class RedisExtension extends ServiceExtension {

  private final RedisServer server;

  /** Creates an extension whose server accepts any client. */
  public RedisExtension() {
    this(RedisServer.create());
  }

  private RedisExtension(RedisServer server) {
    super(server);
    this.server = server;
  }

  /**
   * Creates an extension whose server requires {@code AUTH password}.
   *
   * @throws IllegalArgumentException if the password is null or blank
   */
  public static RedisExtension withPassword(String password) {
    return new RedisExtension(RedisServer.withPassword(password));
  }

  /**
   * Creates an extension whose server speaks only TLS, under a CA issued for it: see
   * {@link RedisServer#withTls()} and {@link #tlsCertificates()}.
   */
  public static RedisExtension withTls() {
    return new RedisExtension(RedisServer.withTls());
  }

  /** See {@link RedisServer#tlsCertificates()}. */
  public Optional<TestCertificates> tlsCertificates() {
    return server.tlsCertificates();
  }

  /** Returns the server this extension runs. */
  public RedisServer server() {
    return server;
  }

  /** See {@link RedisServer#host()}. */
  public String host() {
    return server.host();
  }

  /** See {@link RedisServer#port()}. */
  public int port() {
    return server.port();
  }

  /** See {@link RedisServer#uri()}. */
  public String uri() {
    return server.uri();
  }

  /** See {@link RedisServer#password()}. */
  public Optional<String> password() {
    return server.password();
  }

  /** See {@link RedisServer#flushAll()}. */
  public void flushAll() {
    server.flushAll();
  }

  /** See {@link RedisServer#stop()}. */
  public void stop() {
    server.stop();
  }

  /** See {@link RedisServer#start()}. */
  public void start() {
    server.start();
  }

  /** See {@link RedisServer#isRunning()}. */
  public boolean isRunning() {
    return server.isRunning();
  }
}
