/**
 * The fault suite: real redis-server and Spanner emulator processes killed, stopped or fed bad
 * bytes while {@link io.warmgate.agent.faults.LoadDriver} keeps a steady lookup rate on two caches.
 * Every test prints what it measured.
 */
package io.warmgate.agent.faults;
