package io.warmgate.operator.inject;

import static io.warmgate.contract.AgentVariables.CACHE_NAME;
import static io.warmgate.contract.AgentVariables.CHANGE_STREAM;
import static io.warmgate.contract.AgentVariables.CHANGE_STREAM_HEARTBEAT;
import static io.warmgate.contract.AgentVariables.KEY_SPACE_VERSION;
import static io.warmgate.contract.AgentVariables.L1_MAX_SIZE;
import static io.warmgate.contract.AgentVariables.L1_TTL;
import static io.warmgate.contract.AgentVariables.L2_TIMEOUT;
import static io.warmgate.contract.AgentVariables.L2_TTL;
import static io.warmgate.contract.AgentVariables.LOCK_TTL;
import static io.warmgate.contract.AgentVariables.MAX_STALENESS;
import static io.warmgate.contract.AgentVariables.NEGATIVE_TTL;
import static io.warmgate.contract.AgentVariables.POD_NAME;
import static io.warmgate.contract.AgentVariables.POD_NAMESPACE;
import static io.warmgate.contract.AgentVariables.POD_TEMPLATE_HASH;
import static io.warmgate.contract.AgentVariables.REFRESH_AHEAD;
import static io.warmgate.contract.AgentVariables.STALE_IF_ERROR;
import static io.warmgate.contract.AgentVariables.VALKEY_ADDRESSES;
import static io.warmgate.contract.AgentVariables.VALKEY_MODE;
import static io.warmgate.contract.AgentVariables.VALKEY_PASSWORD;
import static io.warmgate.contract.AgentVariables.VALKEY_READ_FROM;
import static io.warmgate.contract.AgentVariables.VALKEY_TLS;
import static io.warmgate.contract.AgentVariables.VALKEY_TLS_CA;
import static io.warmgate.contract.AgentVariables.VALKEY_TLS_VERIFY;
import static io.warmgate.contract.AgentVariables.VALKEY_USERNAME;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.warmgate.operator.model.CaCertificateRef;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.ChangeStreamSpec;
import io.warmgate.operator.model.SecretKeyRef;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TlsVerify;
import io.warmgate.operator.model.ValkeySpec;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code WARMGATE_*} environment the cache agent reads ({@code WarmGateConfig} in
 * cache-agent), derived from a CachePolicy spec. The names are the contract's
 * {@link io.warmgate.contract.AgentVariables}, which the agent reads too.
 *
 * <p>The password and the TLS CA are {@code secretKeyRef}s, never values; pod identity comes from the downward
 * API. The change stream's variables come only with {@code spec.changeStream}: their presence
 * turns the application's watcher on. A spec field that is null (a policy stored under an older
 * CRD) is left out, so the agent applies its own default.
 */
public final class AgentEnv {

  /** The Argo Rollouts label telling canary from stable pods. */
  public static final String POD_TEMPLATE_HASH_LABEL = "rollouts-pod-template-hash";
  /** The Deployment controller's label telling a new ReplicaSet's pods from older ones. */
  public static final String DEPLOYMENT_POD_HASH_LABEL = "pod-template-hash";
  /** The StatefulSet controller's label naming the ControllerRevision a pod was made from. */
  public static final String STATEFULSET_POD_HASH_LABEL = "controller-revision-hash";

  private AgentEnv() {}

  /**
   * The variables for {@code spec}, in a fixed order.
   *
   * @throws NullPointerException if {@code spec} or its {@code valkey} is null
   */
  public static List<EnvVar> of(CachePolicySpec spec) {
    ValkeySpec valkey = spec.getValkey();
    List<EnvVar> env = new ArrayList<>();
    value(env, CACHE_NAME, spec.getCacheName());
    value(env, VALKEY_ADDRESSES, String.join(",", valkey.getAddresses()));
    value(env, VALKEY_MODE, valkey.getMode() == null ? null : valkey.getMode().agentValue());
    value(env, VALKEY_READ_FROM,
        valkey.getReadFrom() == null ? null : valkey.getReadFrom().agentValue());
    value(env, VALKEY_USERNAME, valkey.getUsername());
    SecretKeyRef password = valkey.getPasswordSecretKeyRef();
    if (password != null) {
      secret(env, VALKEY_PASSWORD, password.getName(), password.getKey());
    }
    value(env, VALKEY_TLS, valkey.getTls() == null ? null : valkey.getTls().toString());
    CaCertificateRef ca = valkey.getTlsCaSecretRef();
    if (ca != null) {
      secret(env, VALKEY_TLS_CA, ca.getName(), ca.getKey());
    }
    // The default (Full) says nothing without TLS; CA without TLS is passed on for the agent to
    // refuse, as the CRD does.
    if (valkey.getTlsVerify() != null
        && (Boolean.TRUE.equals(valkey.getTls()) || valkey.getTlsVerify() != TlsVerify.Full)) {
      value(env, VALKEY_TLS_VERIFY, valkey.getTlsVerify().agentValue());
    }
    value(env, L1_TTL, spec.getL1Ttl());
    value(env, L1_MAX_SIZE, spec.getL1MaxSize() == null ? null : spec.getL1MaxSize().toString());
    value(env, L2_TTL, spec.getL2Ttl());
    value(env, NEGATIVE_TTL, spec.getNegativeTtl());
    value(env, REFRESH_AHEAD, spec.getRefreshAhead());
    value(env, LOCK_TTL, spec.getLockTtl());
    value(env, L2_TIMEOUT, spec.getL2Timeout());
    value(env, MAX_STALENESS, spec.getMaxStaleness());
    value(env, STALE_IF_ERROR, spec.getStaleIfError());
    value(env, KEY_SPACE_VERSION, spec.getKeySpaceVersion());
    ChangeStreamSpec changes = spec.getChangeStream();
    if (changes != null) {
      value(env, CHANGE_STREAM, changes.getName());
      value(env, CHANGE_STREAM_HEARTBEAT, changes.getHeartbeat());
    }
    field(env, POD_NAME, "metadata.name");
    field(env, POD_NAMESPACE, "metadata.namespace");
    field(env, POD_TEMPLATE_HASH, "metadata.labels['" + podHashLabel(spec) + "']");
    return List.copyOf(env);
  }

  /**
   * The pod label whose value the agent registers as its pod-template hash: the Deployment
   * controller's for a Deployment target (Flagger's canary and primary pods carry it too), the
   * StatefulSet controller's {@code controller-revision-hash} for a StatefulSet target, Argo
   * Rollouts' otherwise.
   */
  public static String podHashLabel(CachePolicySpec spec) {
    TargetKind kind = spec.getTargetRef() == null ? null : spec.getTargetRef().getKind();
    if (kind == TargetKind.Deployment) {
      return DEPLOYMENT_POD_HASH_LABEL;
    }
    return kind == TargetKind.StatefulSet ? STATEFULSET_POD_HASH_LABEL : POD_TEMPLATE_HASH_LABEL;
  }

  private static void value(List<EnvVar> env, String name, String value) {
    if (value != null && !value.isEmpty()) {
      env.add(new EnvVarBuilder().withName(name).withValue(value).build());
    }
  }

  private static void secret(List<EnvVar> env, String name, String secret, String key) {
    env.add(new EnvVarBuilder().withName(name).withNewValueFrom().withNewSecretKeyRef()
        .withName(secret).withKey(key).endSecretKeyRef().endValueFrom().build());
  }

  private static void field(List<EnvVar> env, String name, String path) {
    env.add(new EnvVarBuilder().withName(name).withNewValueFrom().withNewFieldRef()
        .withApiVersion("v1").withFieldPath(path).endFieldRef().endValueFrom().build());
  }
}
