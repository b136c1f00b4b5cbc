package io.warmgate.testing;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The Argo Rollouts CRDs (Rollout, AnalysisRun, AnalysisTemplate, ClusterAnalysisTemplate,
 * Experiment) built by {@code hack/prereqs.sh}, and a way to install them into an API server.
 */
public final class ArgoRollouts {

  /** API group of the Rollout resource. */
  public static final String GROUP = "argoproj.io";
  /** API version of the Rollout resource. */
  public static final String API_VERSION = "argoproj.io/v1alpha1";
  /** Name of the Rollout CRD. */
  public static final String ROLLOUT_CRD = "rollouts.argoproj.io";
  /** The Rollout resource, for {@code client.genericKubernetesResources(ROLLOUTS)}. */
  public static final ResourceDefinitionContext ROLLOUTS = new ResourceDefinitionContext.Builder()
      .withGroup(GROUP).withVersion("v1alpha1").withKind("Rollout").withPlural("rollouts")
      .withNamespaced(true).build();

  private ArgoRollouts() {
  }

  /**
   * Returns the {@code *-crd.yaml} files, sorted by name.
   *
   * @throws IllegalStateException if there are none (run {@code hack/prereqs.sh})
   */
  public static List<Path> crdFiles() {
    Path dir = ToolBinaries.argoRolloutsDir().resolve("crds");
    List<Path> files = new ArrayList<>();
    if (Files.isDirectory(dir)) {
      try (Stream<Path> list = Files.list(dir)) {
        list.filter(p -> p.getFileName().toString().endsWith("-crd.yaml")).sorted().forEach(files::add);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot list " + dir, e);
      }
    }
    if (files.isEmpty()) {
      throw new IllegalStateException("Argo Rollouts CRDs not found in " + dir + ": "
          + Prerequisites.FIX);
    }
    return files;
  }

  /**
   * Creates or updates every Argo Rollouts CRD (server-side apply) and waits until each is
   * {@code Established}.
   *
   * @throws IllegalStateException if the CRDs are missing or not established within 60 s
   */
  public static void installCrds(KubernetesClient client) {
    List<String> names = new ArrayList<>();
    for (Path file : crdFiles()) {
      CustomResourceDefinition crd;
      try (InputStream in = Files.newInputStream(file)) {
        crd = client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + file, e);
      }
      client.apiextensions().v1().customResourceDefinitions().resource(crd)
          .forceConflicts().serverSideApply();
      names.add(crd.getMetadata().getName());
    }
    for (String name : names) {
      try {
        client.apiextensions().v1().customResourceDefinitions().withName(name).waitUntilCondition(
            c -> c != null && c.getStatus() != null && c.getStatus().getConditions() != null
                && c.getStatus().getConditions().stream().anyMatch(
                    cond -> "Established".equals(cond.getType()) && "True".equals(cond.getStatus())),
            60, TimeUnit.SECONDS);
      } catch (RuntimeException e) {
        throw new IllegalStateException("CRD " + name + " not Established within 60 s on "
            + client.getMasterUrl(), e);
      }
    }
  }
}
