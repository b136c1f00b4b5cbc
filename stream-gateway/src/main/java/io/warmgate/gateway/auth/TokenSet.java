package io.warmgate.gateway.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.List;

/**
 * Bearer tokens held as SHA-256 digests and matched in constant time: a presented token is
 * hashed and compared with every digest, whatever matched before, so neither the time taken nor
 * an early exit says how much of a token was right. Immutable and thread-safe.
 */
final class TokenSet {

  static final TokenSet EMPTY = new TokenSet(List.of());

  private final List<byte[]> digests;

  TokenSet(Collection<String> tokens) {
    digests = tokens.stream().map(TokenSet::sha256).toList();
  }

  /** True if {@code presented} is one of the tokens; null or empty is never one. */
  boolean admits(String presented) {
    if (presented == null || presented.isEmpty()) {
      return false;
    }
    byte[] digest = sha256(presented);
    boolean match = false;
    for (byte[] known : digests) {
      match |= MessageDigest.isEqual(known, digest);
    }
    return match;
  }

  boolean isEmpty() {
    return digests.isEmpty();
  }

  int size() {
    return digests.size();
  }

  private static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
