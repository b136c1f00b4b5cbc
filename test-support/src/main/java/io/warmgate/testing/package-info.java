/**
 * Test infrastructure that runs warmgate's real dependencies on free loopback ports: Redis
 * ({@link io.warmgate.testing.RedisExtension}, also TLS-only), a Redis cluster
 * ({@link io.warmgate.testing.RedisClusterExtension}), the Cloud Spanner emulator
 * ({@link io.warmgate.testing.SpannerEmulatorExtension}, {@link io.warmgate.testing.EmulatorDatabase}),
 * kube-apiserver ({@link io.warmgate.testing.KubeApiServerExtension},
 * {@link io.warmgate.testing.KubeApiServer#shared()}) and a kwok cluster with Argo Rollouts
 * ({@link io.warmgate.testing.KwokClusterExtension}).
 *
 * <p>Every process logs to {@code target/test-processes/} and is killed after its tests and, at the
 * latest, when the JVM exits. Missing binaries fail with a message naming {@code hack/prereqs.sh}.
 */
package io.warmgate.testing;
