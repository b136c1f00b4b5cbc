package io.warmgate.operator.chart;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.warmgate.gateway.config.GatewayConfig;
import io.warmgate.testing.TestCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the stream gateway's container, as the chart renders it, would see, and the variables
 * the gateway reads, taken from {@link GatewayConfig} itself.
 */
final class GatewayEnvironment {

  /** The pod name the downward API would give. */
  static final String POD_NAME = "stream-gateway-0";
  /** The gateway's logging configuration (in its jar), which reads WARMGATE_LOG_LEVEL. */
  static final String LOGBACK_FILE = "warmgate-gateway-logback.xml";

  private GatewayEnvironment() {}

  /**
   * Every variable {@link GatewayConfig} reads: its public String constants, except
   * {@link GatewayConfig#UPSTREAM_HEADER_PREFIX}, which names a family.
   */
  static Set<String> configVariables() {
    Set<String> names = new TreeSet<>();
    for (Field field : GatewayConfig.class.getFields()) {
      if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
        try {
          names.add((String) field.get(null));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    names.remove(GatewayConfig.UPSTREAM_HEADER_PREFIX);
    return names;
  }

  /** The gateway's logback configuration as its jar holds it. */
  static String logbackConfiguration() throws IOException {
    try (InputStream in = GatewayConfig.class.getClassLoader().getResourceAsStream(LOGBACK_FILE)) {
      if (in == null) {
        throw new IllegalStateException(LOGBACK_FILE + " is not on the test classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * The container's environment with what Kubernetes would fill in: the pod name for the
   * {@code fieldRef}, {@code <secret>/<key>} for each {@code secretKeyRef}, and paths under the
   * pod's volume mounts moved to {@code dir}, where each tokens Secret volume holds the token
   * {@code <volume>-0123456789abcdef}, each other Secret volume (the Valkey CA) a real CA
   * certificate, and each ConfigMap volume is an empty directory.
   */
  static Map<String, String> of(PodSpec pod, Path dir) throws IOException {
    Container container = pod.getContainers().get(0);
    Map<String, Path> mounts = new LinkedHashMap<>();
    for (VolumeMount mount : container.getVolumeMounts()) {
      Volume volume = pod.getVolumes().stream().filter(v -> v.getName().equals(mount.getName()))
          .findFirst().orElseThrow(() -> new IllegalStateException("no volume " + mount.getName()));
      Path local = Files.createDirectories(dir.resolve(mount.getName()));
      if (volume.getSecret() != null && mount.getName().endsWith("-tokens")) {
        for (KeyToPath item : volume.getSecret().getItems()) {
          Files.writeString(local.resolve(item.getPath()),
              "# " + volume.getSecret().getSecretName() + "/" + item.getKey() + "\n"
                  + mount.getName() + "-0123456789abcdef\n");
        }
      } else if (volume.getSecret() != null) {
        Path ca = TestCertificates.issue(dir.resolve("issued-" + mount.getName())).caCertificate();
        for (KeyToPath item : volume.getSecret().getItems()) {
          Files.copy(ca, local.resolve(item.getPath()));
        }
      }
      mounts.put(mount.getMountPath(), local);
    }
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar variable : container.getEnv()) {
      String value;
      if (variable.getValueFrom() == null) {
        value = variable.getValue();
        for (Map.Entry<String, Path> mount : mounts.entrySet()) {
          if (value.startsWith(mount.getKey() + "/") || value.equals(mount.getKey())) {
            value = mount.getValue() + value.substring(mount.getKey().length());
          }
        }
      } else if (variable.getValueFrom().getSecretKeyRef() != null) {
        value = variable.getValueFrom().getSecretKeyRef().getName() + "/"
            + variable.getValueFrom().getSecretKeyRef().getKey();
      } else if ("metadata.name".equals(variable.getValueFrom().getFieldRef().getFieldPath())) {
        value = POD_NAME;
      } else {
        throw new IllegalStateException("unexpected valueFrom of " + variable.getName());
      }
      if (env.put(variable.getName(), value) != null) {
        throw new IllegalStateException(variable.getName() + " is set twice");
      }
    }
    return env;
  }
}
