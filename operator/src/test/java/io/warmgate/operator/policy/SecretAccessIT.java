package io.warmgate.operator.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.warmgate.operator.OperatorSettings;
import io.warmgate.operator.WarmgateOperator;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Heap;
import io.warmgate.operator.testing.Policies;
import io.warmgate.testing.RedisExtension;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 28 item 1: the operator reads the Secrets policies name, by name, and nothing else.
 * RBAC is enforced by the real API server; the operator acts as its service account with
 * k8s/rbac.yaml, get on Secrets bound in one namespace only (as the chart does with
 * rbac.secretNamespaces).
 */
class SecretAccessIT {

  static final Logger log = LoggerFactory.getLogger(SecretAccessIT.class);
  static final String OPERATOR_NAMESPACE = "warmgate-system";
  static final String SERVICE_ACCOUNT = "warmgate-operator";
  static final String PASSWORD = "s3cret-pw";
  /** Unrelated Secrets of the heap check: 48 of 768 KiB, 36 MiB of data in all. */
  static final int LARGE_SECRETS = 48;
  static final int LARGE_SECRET_BYTES = 768 * 1024;
  /** What the operator's heap may grow by while they are created; their data is 36 MiB. */
  static final long HEAP_GROWTH_LIMIT = 12L * 1024 * 1024;

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.withPassword(PASSWORD);

  static OperatorSettings settings() {
    return OperatorSettings.fromEnvironment(Map.of(
        "WARMGATE_LEADER_ELECTION", "false",
        "POD_NAMESPACE", OPERATOR_NAMESPACE,
        "WARMGATE_HTTP_PORT", "0",
        "WARMGATE_VALKEY_RECHECK_INTERVAL", "1s",
        "WARMGATE_VALKEY_TIMEOUT", "1s",
        "WARMGATE_VALKEY_ALLOWED_ADDRESSES", Policies.LOOPBACK));
  }

  @Test
  void theOperatorGetsOnlyNamedSecretsInNamespacesItIsGrantedAndNeverListsThem()
      throws Exception {
    KubernetesClient admin = api.client();
    api.applyCrd(ApiServer.cachePolicyCrd());
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata()
        .withName(OPERATOR_NAMESPACE).endMetadata().build()).create();
    String granted = api.newNamespace("granted");
    String other = api.newNamespace("other");
    try (InputStream rbac = Files.newInputStream(Path.of("k8s/rbac.yaml"))) {
      List<HasMetadata> objects = admin.load(rbac).items();
      for (HasMetadata o : objects) {
        // Narrowed as the chart narrows it: get on Secrets in the granted namespace only.
        if (o instanceof ClusterRoleBinding b
            && b.getRoleRef().getName().equals("warmgate-operator-secrets")) {
          admin.resource(new RoleBindingBuilder().withNewMetadata()
              .withName("warmgate-operator-secrets").withNamespace(granted).endMetadata()
              .withRoleRef(b.getRoleRef()).withSubjects(b.getSubjects()).build()).create();
        } else {
          admin.resource(o).create();
        }
      }
    }
    Policies policies = new Policies(admin);
    String address = redis.host() + ":" + redis.port();
    for (String ns : List.of(granted, other)) {
      policies.deployment(ns, "app");
      policies.secret(ns, "valkey-auth", "password", PASSWORD);
      policies.policy(ns, "deals", TargetKind.Deployment, "app", address, "valkey-auth");
    }

    try (KubernetesClient asOperator = api.clientAs(OPERATOR_NAMESPACE, SERVICE_ACCOUNT);
        WarmgateOperator operator = WarmgateOperator.start(settings(), asOperator)) {

      policies.awaitCondition(granted, "deals", Conditions.READY, "True", "Reconciled");
      Condition forbidden =
          policies.awaitCondition(other, "deals", Conditions.READY, "False", "SecretForbidden");
      assertThat(forbidden.getMessage()).contains("Secret " + other + "/valkey-auth")
          .contains("rbac.secretNamespaces");
      for (String ns : List.of(granted, other)) {
        assertThatThrownBy(() -> asOperator.secrets().inNamespace(ns).list())
            .as("list Secrets in %s", ns).isInstanceOf(KubernetesClientException.class)
            .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403));
      }
      assertThatThrownBy(() -> asOperator.secrets().inAnyNamespace().list())
          .isInstanceOf(KubernetesClientException.class);

      // A changed password is followed without a watch: read again by name.
      policies.secret(granted, "valkey-auth", "password", "not-the-password");
      policies.awaitCondition(granted, "deals", Conditions.READY, "False", "AuthFailed");
      policies.secret(granted, "valkey-auth", "password", PASSWORD);
      policies.awaitCondition(granted, "deals", Conditions.READY, "True", "Reconciled");
    }
  }

  /**
   * A bounded version of "5,000 large Secrets": 48 unrelated Secrets of 768 KiB (36 MiB of data)
   * created while a policy naming its own Secret is reconciled every second. The operator runs in
   * this JVM, so the heap measured after a full GC is its heap plus the test's.
   */
  @Test
  void manyLargeUnrelatedSecretsLeaveTheOperatorsHeapFlat() throws Exception {
    KubernetesClient admin = api.client();
    api.applyCrd(ApiServer.cachePolicyCrd());
    String ns = api.newNamespace("heap");
    String bulk = api.newNamespace("bulk");
    Policies policies = new Policies(admin);
    policies.deployment(ns, "app");
    policies.secret(ns, "valkey-auth", "password", PASSWORD);
    policies.policy(ns, "deals", TargetKind.Deployment, "app",
        redis.host() + ":" + redis.port(), "valkey-auth");

    try (WarmgateOperator operator = WarmgateOperator.start(settings(), admin)) {
      policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
      Thread.sleep(2_000);
      long before = Heap.usedAfterGc();

      byte[] data = new byte[LARGE_SECRET_BYTES];
      for (int i = 0; i < LARGE_SECRETS; i++) {
        Arrays.fill(data, (byte) ('a' + i % 26));
        admin.secrets().inNamespace(bulk).resource(new SecretBuilder().withNewMetadata()
            .withName("release-" + i).endMetadata()
            .addToData("release", Base64.getEncoder().encodeToString(data)).build()).create();
      }
      data = null;
      // Several reconciliations of the policy, and time for any watch to deliver every Secret.
      Thread.sleep(5_000);
      policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
      long after = Heap.usedAfterGc();

      log.info("Operator JVM heap after GC: before {} MiB, after {} large Secrets {} MiB, "
          + "growth {} MiB (limit {} MiB)", mib(before), LARGE_SECRETS, mib(after),
          mib(after - before), mib(HEAP_GROWTH_LIMIT));
      assertThat(after - before).as("heap growth in bytes with %d MiB of unrelated Secrets",
          (long) LARGE_SECRETS * LARGE_SECRET_BYTES / (1024 * 1024))
          .isLessThan(HEAP_GROWTH_LIMIT);
    }
  }

  private static long mib(long bytes) {
    return bytes / (1024 * 1024);
  }
}
