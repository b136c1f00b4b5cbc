package io.warmgate.operator.valkey;

/**
 * The outcome of checking every address of a {@link ValkeyEndpoint}.
 *
 * @param reachable whether every address answered PING
 * @param reason CamelCase reason, {@code Connected} when reachable
 * @param message what was checked or what failed, naming the address; stable between probes
 *     with the same outcome so that status patches only happen on change
 */
public record ProbeResult(boolean reachable, String reason, String message) {}
