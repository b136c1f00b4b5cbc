package io.warmgate.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A replica that loses the leader Lease writes no more status, from the moment it learns of the
 * loss, although its process takes up to {@code WARMGATE_SHUTDOWN_TIMEOUT} to exit (a real
 * kube-apiserver; another holder takes the Lease and keeps renewing it, as a new leader does).
 */
class LostLeaseIT {

  static final String LEASE_NAMESPACE = "warmgate-system";
  static final String LEASE = "warmgate-operator";

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  @Test
  void aReplicaThatLostTheLeaseWritesNoMoreStatus() throws Exception {
    KubernetesClient admin = api.client();
    api.applyCrd(ApiServer.cachePolicyCrd());
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata()
        .withName(LEASE_NAMESPACE).endMetadata().build()).create();
    String ns = api.newNamespace("lease");
    Policies policies = new Policies(admin);
    policies.deployment(ns, "deals");

    AtomicBoolean exited = new AtomicBoolean();
    OperatorSettings settings = OperatorSettings.fromEnvironment(Map.ofEntries(
        Map.entry("WARMGATE_LEASE_NAMESPACE", LEASE_NAMESPACE),
        Map.entry("POD_NAME", "warmgate-operator-0"),
        Map.entry("WARMGATE_LEASE_DURATION", "4s"),
        Map.entry("WARMGATE_LEASE_RENEW_DEADLINE", "3s"),
        Map.entry("WARMGATE_LEASE_RETRY_PERIOD", "1s"),
        Map.entry("WARMGATE_HTTP_PORT", "0"),
        Map.entry("WARMGATE_VALKEY_ALLOWED_ADDRESSES", Policies.LOOPBACK),
        Map.entry("WARMGATE_VALKEY_RECHECK_INTERVAL", "1s"),
        Map.entry("WARMGATE_VALKEY_TIMEOUT", "1s"),
        Map.entry("WARMGATE_SHUTDOWN_TIMEOUT", "5s")));
    ScheduledExecutorService newLeader = Executors.newSingleThreadScheduledExecutor();
    try (WarmgateOperator replica = WarmgateOperator.start(settings, admin,
        () -> exited.set(true))) {
      policy(policies, ns, "first");
      await().atMost(Policies.WITHIN).until(() -> Long.valueOf(1).equals(observed(policies, ns, "first")));

      // Another replica takes the Lease and renews it every second.
      newLeader.scheduleAtFixedRate(() -> admin.leases().inNamespace(LEASE_NAMESPACE)
          .withName(LEASE).edit(lease -> {
            lease.getSpec().setHolderIdentity("warmgate-operator-1");
            lease.getSpec().setRenewTime(ZonedDateTime.now(ZoneOffset.UTC));
            return lease;
          }), 0, 1, TimeUnit.SECONDS);
      await().atMost(Duration.ofSeconds(20)).untilTrue(exited);

      policy(policies, ns, "second");
      admin.resources(CachePolicy.class).inNamespace(ns).withName("first").edit(p -> {
        p.getSpec().setL1Ttl("30s");
        return p;
      });
      Instant until = Instant.now().plusSeconds(5);
      while (Instant.now().isBefore(until)) {
        assertThat(policies.get(ns, "second").getStatus()).as("a new policy's status").isNull();
        assertThat(observed(policies, ns, "first")).as("observed generation of an edited one")
            .isEqualTo(1L);
        Thread.sleep(200);
      }
    } finally {
      newLeader.shutdownNow();
    }
  }

  /** Creates a policy on a Deployment, its Valkey refusing connections. */
  static CachePolicy policy(Policies policies, String ns, String name) {
    return policies.policy(ns, name, TargetKind.Deployment, "deals", "127.0.0.1:1", null);
  }

  static Long observed(Policies policies, String ns, String name) {
    CachePolicy policy = policies.get(ns, name);
    return policy.getStatus() == null ? null : policy.getStatus().getObservedGeneration();
  }
}
