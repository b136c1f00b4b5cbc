/** The schema hash: which L2 key space a value type reads and writes. */
package io.warmgate.agent.schema;
