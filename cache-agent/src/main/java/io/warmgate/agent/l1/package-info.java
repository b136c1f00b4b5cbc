/**
 * The L1 tier: a bounded in-process Caffeine cache whose entries carry their own freshness
 * deadline. Public for the engine only; not part of the cache's API.
 */
package io.warmgate.agent.l1;
