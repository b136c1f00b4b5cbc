/**
 * The L2 tier: key names ({@link io.warmgate.agent.l2.KeySpace}), the stored envelope and the
 * guarded Valkey/Redis client. Public for the engine and the operator's key naming only; not part
 * of the cache's API.
 */
package io.warmgate.agent.l2;
