/**
 * A test payload shaped like the example's Deal (nested records, lists, an enum, instants): what
 * the fault, payload-size and schema-hash tests cache. The example's own Deal lives in
 * {@code examples/deal}, which depends on this library and so cannot be used by its tests.
 */
package io.warmgate.agent.deal;
