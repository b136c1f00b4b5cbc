/**
 * The coalescing stream gateway: identical expensive upstream calls collapse into one per fleet,
 * fanned out as server-sent events. Entry points: {@link io.warmgate.gateway.StreamGateway} and
 * {@link io.warmgate.gateway.GatewayMain}.
 */
package io.warmgate.gateway;
