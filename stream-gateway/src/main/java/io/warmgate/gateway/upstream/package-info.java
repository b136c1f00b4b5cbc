/** The upstream client: one streamed SSE call, bounded by connect, idle and total timeouts. */
package io.warmgate.gateway.upstream;
