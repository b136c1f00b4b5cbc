package io.warmgate.gateway.auth;

import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a request's {@code Authorization: Bearer <token>} admits it to a {@link Role}.
 * Each role has its own tokens; a token of one role never admits the other. Tokens read from a
 * file are read again by {@link #reload()}; a file that has become unreadable, empty or malformed
 * leaves the tokens read last in force (logged), so a bad Secret update never locks every client
 * out nor lets anyone in. Thread-safe.
 */
public final class ClientAuth {

  private static final Logger log = LoggerFactory.getLogger(ClientAuth.class);
  private static final String BEARER = "Bearer ";

  /** What a request asks to do. */
  public enum Role {
    /** {@code POST /v1/streams/{template}}: trigger and read upstream calls. */
    STREAM,
    /** {@code PUT|DELETE /v1/burst[...]}: raise or lower a burst flag. */
    BURST
  }

  /** The answer for one request. */
  public enum Decision {
    /** The token admits the request. */
    ADMITTED,
    /** No bearer token was sent: 401. */
    MISSING,
    /** The token is not one of any role's: 401. */
    INVALID,
    /** The token is another role's, or the role has no token at all: 403. */
    FORBIDDEN
  }

  private final boolean enabled;
  private final Tokens stream;
  private final Tokens burst;

  private ClientAuth(boolean enabled, TokenSource stream, TokenSource burst) {
    this.enabled = enabled;
    this.stream = new Tokens(stream);
    this.burst = new Tokens(burst);
  }

  /**
   * Checks tokens: {@code stream} admits streams; {@code burst}, if given, admits the burst flag
   * (without it, nobody may set it over HTTP).
   *
   * @throws IllegalArgumentException if a source cannot be read or holds a malformed token
   */
  public static ClientAuth tokens(TokenSource stream, Optional<TokenSource> burst) {
    return new ClientAuth(true, Objects.requireNonNull(stream, "stream"), burst.orElse(null));
  }

  /** Admits every request: authentication is left to something in front (a mesh's mTLS policy). */
  public static ClientAuth none() {
    return new ClientAuth(false, null, null);
  }

  /** False when every request is admitted. */
  public boolean enabled() {
    return enabled;
  }

  /** Decides for {@code role} with the request's {@code Authorization} header (null if absent). */
  public Decision check(Role role, String authorization) {
    if (!enabled) {
      return Decision.ADMITTED;
    }
    if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return Decision.MISSING;
    }
    String token = authorization.substring(BEARER.length()).strip();
    // Both sets are always checked, so the time taken does not tell which role a token has.
    boolean asStream = stream.current().admits(token);
    boolean asBurst = burst.current().admits(token);
    boolean own = role == Role.STREAM ? asStream : asBurst;
    if (own) {
      return Decision.ADMITTED;
    }
    return asStream || asBurst || (role == Role.BURST && burst.current().isEmpty())
        ? Decision.FORBIDDEN : Decision.INVALID;
  }

  /** True if no token may set the burst flag over HTTP. */
  public boolean burstClosed() {
    return enabled && burst.current().isEmpty();
  }

  /** Reads token files again; keeps the tokens read last when a file is unusable now. */
  public void reload() {
    stream.reload();
    burst.reload();
  }

  @Override
  public String toString() {
    return enabled ? "bearer tokens: streams " + stream + ", burst flag " + burst : "none";
  }

  /** One role's tokens and where they come from. */
  private static final class Tokens {
    private final TokenSource source;
    private volatile TokenSet current;
    private volatile String lastProblem;

    Tokens(TokenSource source) {
      this.source = source;
      this.current = source == null ? TokenSet.EMPTY : new TokenSet(source.read());
    }

    TokenSet current() {
      return current;
    }

    void reload() {
      if (source == null || source.path().isEmpty()) {
        return;
      }
      try {
        current = new TokenSet(source.read());
        if (lastProblem != null) {
          log.info("{} is usable again ({} tokens)", source, current.size());
          lastProblem = null;
        }
      } catch (IllegalArgumentException e) {
        if (!e.getMessage().equals(lastProblem)) {
          log.warn("{}; the {} tokens read before stay in force", e.getMessage(), current.size());
          lastProblem = e.getMessage();
        }
      }
    }

    @Override
    public String toString() {
      return source == null ? "none" : source.toString();
    }
  }
}
