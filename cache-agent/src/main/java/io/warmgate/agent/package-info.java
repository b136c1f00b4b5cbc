/**
 * The warmgate cache agent: a read-through cache with an in-process L1, a shared Valkey/Redis L2
 * and a batched origin.
 *
 * <p>The API is {@link io.warmgate.agent.WarmGate} (builder and {@code fromEnvironment}),
 * {@link io.warmgate.agent.TieredCache}, {@link io.warmgate.agent.Origin},
 * {@link io.warmgate.agent.WarmGateConfig}, {@link io.warmgate.agent.CacheLoadException} and
 * {@link io.warmgate.agent.KeySpaceVersion}.
 * Sub-packages by capability: {@code l1}, {@code l2} (keys, envelope, guarded client),
 * {@code schema} (schema hash), {@code registry}, {@code stats}, {@code hot}, {@code preload},
 * {@code invalidate} and {@code fleet}: the machinery behind the API, which uses nothing of this
 * package (each package-info says which of its public types are meant for whom; a test keeps the
 * list). The agent reads no database itself: origins such as the Cloud Spanner one
 * ({@code warmgate-spanner-origin}) come in their own artifacts, and the Valkey connection and the
 * {@code WARMGATE_VALKEY_*} variables from {@code warmgate-valkey-client}
 * ({@code io.warmgate.valkey}).
 */
package io.warmgate.agent;
