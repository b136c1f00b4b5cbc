package io.warmgate.localpods;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapKeySelector;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.ObjectFieldSelector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves a container's environment the way the kubelet does: literal values, the downward API
 * ({@code fieldRef}) and {@code secretKeyRef} / {@code configMapKeyRef}. Later entries override
 * earlier ones, as in a pod; {@code $(VAR)} references are expanded.
 */
final class PodEnv {

  private static final Pattern LABEL_OR_ANNOTATION =
      Pattern.compile("metadata\\.(labels|annotations)\\['([^']+)'\\]");
  private static final Pattern VAR_REF = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

  private final KubernetesClient client;

  PodEnv(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Returns the resolved environment of {@code container} in {@code pod}.
   *
   * @throws IllegalStateException naming the variable when a required source does not exist
   */
  Map<String, String> resolve(Pod pod, Container container) {
    Map<String, String> env = new LinkedHashMap<>();
    if (container.getEnv() == null) {
      return env;
    }
    for (EnvVar var : container.getEnv()) {
      String value = var.getValueFrom() == null ? expand(var.getValue(), env) : fromSource(pod, var);
      if (value != null) {
        env.put(var.getName(), value);
      }
    }
    return env;
  }

  private static String expand(String value, Map<String, String> env) {
    if (value == null) {
      return "";
    }
    Matcher m = VAR_REF.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(env.getOrDefault(m.group(1), m.group())));
    }
    return m.appendTail(out).toString();
  }

  private String fromSource(Pod pod, EnvVar var) {
    EnvVarSource source = var.getValueFrom();
    if (source.getFieldRef() != null) {
      return field(pod, var.getName(), source.getFieldRef());
    }
    if (source.getSecretKeyRef() != null) {
      return secret(pod, var.getName(), source.getSecretKeyRef());
    }
    if (source.getConfigMapKeyRef() != null) {
      return configMap(pod, var.getName(), source.getConfigMapKeyRef());
    }
    throw new IllegalStateException("env " + var.getName() + " of pod " + pod.getMetadata().getName()
        + " uses a source local pods cannot resolve (resourceFieldRef): give it a value");
  }

  private static String field(Pod pod, String name, ObjectFieldSelector selector) {
    String path = selector.getFieldPath();
    switch (path) {
      case "metadata.name":
        return pod.getMetadata().getName();
      case "metadata.namespace":
        return pod.getMetadata().getNamespace();
      case "metadata.uid":
        return pod.getMetadata().getUid();
      case "spec.nodeName":
        return pod.getSpec().getNodeName();
      case "spec.serviceAccountName":
        return pod.getSpec().getServiceAccountName();
      case "status.podIP":
        return "127.0.0.1";
      default:
        break;
    }
    Matcher m = LABEL_OR_ANNOTATION.matcher(path);
    if (m.matches()) {
      Map<String, String> map = m.group(1).equals("labels")
          ? pod.getMetadata().getLabels() : pod.getMetadata().getAnnotations();
      // Like the kubelet: a missing label or annotation is the empty string.
      return map == null ? "" : map.getOrDefault(m.group(2), "");
    }
    throw new IllegalStateException("env " + name + " of pod " + pod.getMetadata().getName()
        + " has fieldRef '" + path + "', which local pods do not support: use metadata.name, "
        + "metadata.namespace, metadata.labels['…'] or metadata.annotations['…']");
  }

  private String secret(Pod pod, String name, SecretKeySelector ref) {
    String ns = pod.getMetadata().getNamespace();
    Secret secret = client.secrets().inNamespace(ns).withName(ref.getName()).get();
    String encoded = secret == null || secret.getData() == null ? null : secret.getData().get(ref.getKey());
    if (encoded == null && secret != null && secret.getStringData() != null) {
      return secret.getStringData().get(ref.getKey());
    }
    if (encoded == null) {
      return missing(pod, name, "Secret", ref.getName(), ref.getKey(), ref.getOptional());
    }
    return new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
  }

  private String configMap(Pod pod, String name, ConfigMapKeySelector ref) {
    String ns = pod.getMetadata().getNamespace();
    ConfigMap map = client.configMaps().inNamespace(ns).withName(ref.getName()).get();
    String value = map == null || map.getData() == null ? null : map.getData().get(ref.getKey());
    return value != null ? value : missing(pod, name, "ConfigMap", ref.getName(), ref.getKey(), ref.getOptional());
  }

  private static String missing(Pod pod, String var, String kind, String object, String key, Boolean optional) {
    if (Boolean.TRUE.equals(optional)) {
      return null;
    }
    throw new IllegalStateException("env " + var + " of pod " + pod.getMetadata().getName() + " needs key '"
        + key + "' of " + kind + " " + pod.getMetadata().getNamespace() + "/" + object
        + ", which does not exist: create it (the pod would not start in a real cluster either)");
  }
}
