package io.warmgate.operator.valkey;

/**
 * The outcome of checking every address of a {@link ValkeyEndpoint}.
 *
 * @param reachable whether every address answered PING
 * @param reason CamelCase reason, {@code Connected} when reachable
 * @param message what was checked or what failed, naming the address; stable between probes
 *     with the same outcome so that status patches only happen on change
 * @param unprotected when the policy gives a password but the server answered without one: what
 *     to fix (the server is not protected as the policy assumes, and servers that reject a
 *     password they do not expect refuse agents that send one); null otherwise
 */
public record ProbeResult(boolean reachable, String reason, String message, String unprotected) {

  static ProbeResult failed(String reason, String message) {
    return new ProbeResult(false, reason, message, null);
  }
}
