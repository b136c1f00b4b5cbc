package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequestBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;

/** Every outcome admits the pod; only a configured pod carries a patch. */
class PodInjectionHandlerTest {

  final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  PodInjectionHandler handler(BiFunction<String, String, Optional<CachePolicy>> policies) {
    return handler(policies, (ns, deployment) -> false);
  }

  PodInjectionHandler handler(BiFunction<String, String, Optional<CachePolicy>> policies,
      BiPredicate<String, String> flaggerDriven) {
    return new PodInjectionHandler(policies, ns -> !ns.equals("elsewhere"), flaggerDriven,
        new InjectionEvents(null, Clock.systemUTC()), registry);
  }

  static String patch(AdmissionResponse response) {
    return new String(Base64.getDecoder().decode(response.getPatch()), StandardCharsets.UTF_8);
  }

  static AdmissionRequest request(String namespace, Object object, boolean dryRun) {
    return new AdmissionRequestBuilder().withUid("uid").withNamespace(namespace)
        .withOperation("CREATE").withObject(object).withDryRun(dryRun).build();
  }

  double count(String result) {
    return registry.get("warmgate.injection").tag("result", result).counter().count();
  }

  @Test
  void configuresALabelledPodWithAJsonPatch() {
    AdmissionResponse response = handler((ns, name) -> Optional.of(
        PodInjectorTest.policy(List.of()))).handle(request("shop", PodInjectorTest.pod(), false));

    assertThat(response.getAllowed()).isTrue();
    assertThat(response.getPatchType()).isEqualTo("JSONPatch");
    assertThat(response.getPatch()).isNotBlank();
    assertThat(count("injected")).isEqualTo(1);
  }

  @Test
  void aPodConfiguredAlreadyGetsNoPatch() {
    CachePolicy policy = PodInjectorTest.policy(List.of());
    AdmissionResponse response = handler((ns, name) -> Optional.of(policy)).handle(
        request("shop", PodInjector.inject(PodInjectorTest.pod(), policy), false));

    assertThat(response.getAllowed()).isTrue();
    assertThat(response.getPatch()).isNull();
    assertThat(count("unchanged")).isEqualTo(1);
  }

  @Test
  void aMissingPolicyOnADryRunAdmitsWithoutSideEffects() {
    // No client is given: recording an Event would fail and count as "failed".
    AdmissionResponse response = handler((ns, name) -> Optional.empty())
        .handle(request("shop", PodInjectorTest.pod(), true));

    assertThat(response.getAllowed()).isTrue();
    assertThat(response.getPatch()).isNull();
    assertThat(count("policy_not_found")).isEqualTo(1);
    assertThat(count("failed")).isZero();
  }

  @Test
  void failuresAndForeignObjectsAreAdmittedUnchanged() {
    PodInjectionHandler failing = handler((ns, name) -> {
      throw new IllegalStateException("API server unreachable");
    });

    assertThat(failing.handle(request("shop", PodInjectorTest.pod(), false)).getAllowed())
        .isTrue();
    assertThat(failing.handle(request("elsewhere", PodInjectorTest.pod(), false)).getAllowed())
        .isTrue();
    assertThat(failing.handle(request("shop", new ConfigMapBuilder().withNewMetadata()
        .withName("c").endMetadata().build(), false)).getAllowed()).isTrue();
    assertThat(count("failed")).isEqualTo(1);
    assertThat(count("namespace_not_watched")).isEqualTo(1);
    assertThat(count("not_labelled")).isEqualTo(1);
  }

  @Test
  void aDeploymentFlaggerDrivesGetsNoReadinessGateItsConfirmPromotionWebhookIsTheGate() {
    CachePolicy policy = PodInjectorTest.policy(List.of());
    policy.getSpec().setTargetRef(new TargetRef(TargetKind.Deployment, "deal-service"));
    List<String> asked = new ArrayList<>();

    String flagger = patch(handler((ns, name) -> Optional.of(policy), (ns, deployment) -> {
      asked.add(ns + "/" + deployment);
      return true;
    }).handle(request("shop", PodInjectorTest.pod(), false)));
    String plain = patch(handler((ns, name) -> Optional.of(policy), (ns, deployment) -> false)
        .handle(request("shop", PodInjectorTest.pod(), false)));
    String unknown = patch(handler((ns, name) -> Optional.of(policy), (ns, deployment) -> {
      throw new IllegalStateException("API server unreachable");
    }).handle(request("shop", PodInjectorTest.pod(), false)));

    assertThat(asked).containsExactly("shop/deal-service");
    assertThat(flagger).contains("WARMGATE_").doesNotContain(PodInjector.READINESS_GATE);
    assertThat(plain).contains(PodInjector.READINESS_GATE);
    assertThat(unknown).as("when Flagger's part cannot be read, the gate the operator sets anyway")
        .contains(PodInjector.READINESS_GATE);
    assertThat(count("injected")).isEqualTo(3);
  }

  @Test
  void aRolloutsPodNeverAsksWhetherFlaggerDrivesIt() {
    handler((ns, name) -> Optional.of(PodInjectorTest.policy(List.of())), (ns, deployment) -> {
      throw new AssertionError("asked about " + deployment);
    }).handle(request("shop", PodInjectorTest.pod(), false));

    assertThat(count("injected")).isEqualTo(1);
  }
}
