/**
 * The Valkey layout the cache agent writes and the operator reads ({@code docs/valkey-layout.md}):
 * the key names ({@link io.warmgate.contract.valkey.ControlKeys},
 * {@link io.warmgate.contract.valkey.ValueKeys}), how an id goes into a key
 * ({@link io.warmgate.contract.valkey.IdEscaping}), the registry entry's fields
 * ({@link io.warmgate.contract.valkey.AgentEntry}) and the warm job's states
 * ({@link io.warmgate.contract.valkey.WarmJobState}). Both sides build keys only here.
 */
package io.warmgate.contract.valkey;
