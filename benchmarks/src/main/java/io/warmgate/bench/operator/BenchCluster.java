package io.warmgate.bench.operator;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.testing.ArgoRollouts;
import io.warmgate.testing.KubeApiServer;
import io.warmgate.testing.RedisServer;
import io.warmgate.testing.WarmgatePaths;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real kube-apiserver with the CachePolicy and Argo Rollouts CRDs, and a real Redis: what the
 * operator talks to in a cluster, without any controller (the benchmark plays Argo's part).
 */
public final class BenchCluster implements AutoCloseable {

  private final KubeApiServer api = KubeApiServer.create();
  private final RedisServer redis;
  private final boolean ownsRedis;

  /** A cluster with a Redis of its own. */
  BenchCluster() {
    this(RedisServer.create(), true);
  }

  /** A cluster whose operator uses {@code redis}, started and closed by the caller. */
  public BenchCluster(RedisServer redis) {
    this(redis, false);
  }

  private BenchCluster(RedisServer redis, boolean ownsRedis) {
    this.redis = redis;
    this.ownsRedis = ownsRedis;
  }

  public BenchCluster start() {
    api.start();
    if (ownsRedis) {
      redis.start();
    }
    installCachePolicyCrd();
    ArgoRollouts.installCrds(api.client());
    return this;
  }

  public KubernetesClient client() {
    return api.client();
  }

  Path kubeconfig() {
    return api.kubeconfigPath();
  }

  RedisServer redis() {
    return redis;
  }

  public String valkeyAddress() {
    return redis.host() + ":" + redis.port();
  }

  public void createNamespace(String name) {
    client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
        .endMetadata().build()).create();
  }

  private void installCachePolicyCrd() {
    Path file = WarmgatePaths.repoDir().resolve("crds/cachepolicies.warmgate.io-v1.yml");
    CustomResourceDefinition crd;
    try (InputStream in = Files.newInputStream(file)) {
      crd = client().getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    client().apiextensions().v1().customResourceDefinitions().resource(crd).serverSideApply();
    client().apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
        .waitUntilCondition(c -> c != null && c.getStatus() != null
            && c.getStatus().getConditions() != null
            && c.getStatus().getConditions().stream().anyMatch(cond ->
                "Established".equals(cond.getType()) && "True".equals(cond.getStatus())),
            60, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    try {
      if (ownsRedis) {
        redis.close();
      }
    } finally {
      api.close();
    }
  }
}
