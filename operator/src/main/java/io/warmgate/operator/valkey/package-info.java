/**
 * The operator's reach into each policy's Valkey: {@link io.warmgate.operator.valkey.ValkeyClients}
 * keeps one link per endpoint, shared by the policies that name it; a link probes the server or
 * every node of the cluster for {@code L2Reachable} and explains a failure (refused, unknown host,
 * credentials, TLS, not Valkey, wrong mode: {@code ValkeyFailures}, {@code WireCheck}), and hands
 * the rollout gate its commands ({@link io.warmgate.operator.valkey.ValkeyCommands}). Watched, the
 * links are probed again on one timer, one probe per endpoint, and the policies of an endpoint
 * whose outcome changed are named to the reconciler, so that no policy needs a timer of its own.
 *
 * <p>It is not {@code warmgate-valkey-client}'s connection, which serves long-lived data paths:
 * that one refuses commands while a node is disconnected and reconnects in the background, where
 * a link bounds every connect and command by the probe timeout, queues a cluster's first command
 * to a node while it connects, reopens a standalone connection only when a probe or the gate needs
 * it, and takes its endpoint from a policy (CA as PEM text from a Secret, a password never
 * printed) rather than from environment variables.
 */
package io.warmgate.operator.valkey;
