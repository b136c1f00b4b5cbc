/**
 * The warmgate cache agent: a read-through cache with an in-process L1, a shared Valkey/Redis L2
 * and a batched origin.
 *
 * <p>The API is {@link io.warmgate.agent.WarmGate} (builder and {@code fromEnvironment}),
 * {@link io.warmgate.agent.TieredCache}, {@link io.warmgate.agent.Origin},
 * {@link io.warmgate.agent.WarmGateConfig} and {@link io.warmgate.agent.CacheLoadException}.
 * Sub-packages by capability: {@code l1}, {@code l2} (keys, envelope, client), {@code schema}
 * (schema hash) and {@code deal} (the Deal domain and its Spanner origin).
 */
package io.warmgate.agent;
