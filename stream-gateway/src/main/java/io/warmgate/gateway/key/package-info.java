/** The coalescing key: template id plus the canonical hash of its shared variables. */
package io.warmgate.gateway.key;
