/** Coalescing across pods through Valkey: runs, the upstream lock and its takeover rule, one stream reader per key per pod, and one producer per key per fleet. */
package io.warmgate.gateway.stream;
