/** Configuration of the stream gateway from {@code WARMGATE_GATEWAY_*} and {@code WARMGATE_VALKEY_*} variables. */
package io.warmgate.gateway.config;
