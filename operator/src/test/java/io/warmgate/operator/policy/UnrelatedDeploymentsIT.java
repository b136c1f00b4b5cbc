package io.warmgate.operator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.WarmgateOperator;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Heap;
import io.warmgate.operator.testing.Policies;
import io.warmgate.testing.RedisExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator informs on every Deployment of the namespaces it watches, since a policy may name
 * any of them; most are unrelated to warmgate. Its cache keeps only their identity and ready
 * replicas ({@link IdentityStore}), so they cost the heap a few hundred bytes each, not their
 * pod templates. Real kube-apiserver; the operator runs in this JVM, so the heap measured after a
 * full GC is its heap plus the test's.
 */
class UnrelatedDeploymentsIT {

  static final Logger log = LoggerFactory.getLogger(UnrelatedDeploymentsIT.class);
  /** Deployments of a realistic size: three containers, env vars, a last-applied annotation. */
  static final int UNRELATED = 4_000;
  /**
   * Heap each may cost, with room for the noise of a heap measured in a shared JVM: 635 and 611
   * bytes were measured; a whole one, as the informer kept it before, cost 33,405 bytes here.
   */
  static final long BYTES_PER_DEPLOYMENT_LIMIT = 1_024;

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @Test
  void unrelatedDeploymentsCostTheHeapOnlyTheirIdentity() throws Exception {
    KubernetesClient admin = api.client();
    api.applyCrd(ApiServer.cachePolicyCrd());
    String ns = api.newNamespace("app");
    String bulk = api.newNamespace("bulk");
    Policies policies = new Policies(admin);
    policies.deployment(ns, "app");
    policies.policy(ns, "deals", TargetKind.Deployment, "app", redis.host() + ":" + redis.port(), null);

    try (WarmgateOperator operator = WarmgateOperator.start(Policies.testSettings(), admin)) {
      policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
      // A policy naming a Deployment created last: one watch stream delivers Deployments in
      // order, so once it is Ready every other one is in the operator's cache.
      policies.policy(bulk, "tail", TargetKind.Deployment, "last", redis.host() + ":" + redis.port(), null);
      policies.awaitCondition(bulk, "tail", Conditions.READY, "False", "TargetNotFound");
      long before = Heap.usedAfterGc();

      createInParallel(admin, bulk);
      policies.deployment(bulk, "last");
      policies.awaitCondition(bulk, "tail", Conditions.READY, "True", "Reconciled");
      long after = Heap.usedAfterGc();
      assertThat(admin.apps().deployments().inNamespace(bulk).list().getItems()).hasSize(UNRELATED + 1);

      long perDeployment = (after - before) / UNRELATED;
      log.info("Operator JVM heap after GC: before {} KiB, after {} unrelated Deployments {} KiB, "
          + "{} bytes each (limit {})", before / 1024, UNRELATED, after / 1024, perDeployment,
          BYTES_PER_DEPLOYMENT_LIMIT);
      assertThat(perDeployment).as("heap bytes per unrelated Deployment").isLessThanOrEqualTo(
          BYTES_PER_DEPLOYMENT_LIMIT);
      // The target itself is still found, with its ready replicas.
      policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
    }
  }

  private static void createInParallel(KubernetesClient admin, String namespace) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> created = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int first = t;
        created.add(pool.submit(() -> IntStream.iterate(first, i -> i < UNRELATED, i -> i + 8)
            .forEach(i -> admin.apps().deployments().inNamespace(namespace).resource(realistic(i)).create())));
      }
      for (Future<?> f : created) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** About the size of a service's Deployment as {@code kubectl apply} leaves it. */
  static Deployment realistic(int i) {
    String name = "service-" + i;
    List<EnvVar> env = IntStream.range(0, 12)
        .mapToObj(e -> new EnvVar("SETTING_" + e, "value-" + e + "-" + name, null)).toList();
    DeploymentBuilder d = new DeploymentBuilder().withNewMetadata().withName(name)
        .addToLabels("app", name).addToLabels("team", "team-" + i % 40)
        .addToAnnotations("kubectl.kubernetes.io/last-applied-configuration", "x".repeat(2_048))
        .endMetadata()
        .withNewSpec().withReplicas(3)
        .withNewSelector().addToMatchLabels("app", name).endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata()
        .withNewSpec()
        .addNewContainer().withName("app").withImage("registry.invalid/" + name + ":1.0." + i)
        .withEnv(env).endContainer()
        .addNewContainer().withName("proxy").withImage("registry.invalid/proxy:2").withEnv(env).endContainer()
        .addNewContainer().withName("logs").withImage("registry.invalid/logs:3").endContainer()
        .endSpec().endTemplate().endSpec();
    return d.build();
  }
}
