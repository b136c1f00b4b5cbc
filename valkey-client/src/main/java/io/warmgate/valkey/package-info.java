/**
 * A Valkey client for every warmgate component that keeps data in Valkey: where Valkey is
 * ({@link io.warmgate.valkey.ValkeyEndpoint}: a standalone server or a cluster, TLS and its CA),
 * one connection that gives the same Lettuce commands in both modes and reconnects by itself
 * ({@link io.warmgate.valkey.ValkeyConnection}), and a lock that only its holder renews or
 * releases ({@link io.warmgate.valkey.TokenLock}). Reading the endpoint from
 * {@code WARMGATE_VALKEY_*} variables is in {@code io.warmgate.valkey.env}.
 */
package io.warmgate.valkey;
