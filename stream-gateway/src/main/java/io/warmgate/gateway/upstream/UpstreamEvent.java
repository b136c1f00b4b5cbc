package io.warmgate.gateway.upstream;

/**
 * One server-sent event read from the upstream.
 *
 * @param event the {@code event:} name, empty for the default {@code message}
 * @param data the {@code data:} lines joined with {@code \n}
 */
public record UpstreamEvent(String event, String data) {}
