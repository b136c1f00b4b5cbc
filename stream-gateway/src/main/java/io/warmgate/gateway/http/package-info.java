/** The HTTP surface: SSE streams with backfill and {@code Last-Event-ID} resume, burst flags, metrics. */
package io.warmgate.gateway.http;
