/** Parsing of the {@code WARMGATE_*} environment values shared by every warmgate component. */
package io.warmgate.valkey.env;
