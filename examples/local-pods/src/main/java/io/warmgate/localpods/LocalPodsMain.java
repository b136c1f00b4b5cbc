package io.warmgate.localpods;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Command line: {@code local-pods --kubeconfig FILE --namespace NS --selector app=x --workdir DIR
 * [--container NAME] -- COMMAND...}. Runs until stopped (SIGTERM stops every pod process).
 */
public final class LocalPodsMain {

  private LocalPodsMain() {}

  public static void main(String[] args) throws InterruptedException {
    String kubeconfig = null;
    String namespace = "default";
    String selector = null;
    String container = null;
    Path workdir = Path.of("local-pods");
    List<String> command = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--kubeconfig" -> kubeconfig = value(args, ++i, "--kubeconfig");
        case "--namespace" -> namespace = value(args, ++i, "--namespace");
        case "--selector" -> selector = value(args, ++i, "--selector");
        case "--container" -> container = value(args, ++i, "--container");
        case "--workdir" -> workdir = Path.of(value(args, ++i, "--workdir"));
        case "--" -> {
          command.addAll(Arrays.asList(args).subList(i + 1, args.length));
          i = args.length;
        }
        default -> usage("unknown argument '" + args[i] + "'");
      }
    }
    if (selector == null) {
      usage("--selector is required, e.g. --selector app=deal-service");
    }
    if (command.isEmpty()) {
      usage("no command: put the command to run for each pod after '--'");
    }
    Config config = kubeconfig == null ? Config.autoConfigure(null) : fromFile(kubeconfig);
    KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
    LocalPodRunner runner = new LocalPodRunner(client, namespace, selector, container, command, workdir).start();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      runner.close();
      client.close();
      stopped.countDown();
    }, "local-pods-stop"));
    stopped.await();
  }

  private static Config fromFile(String kubeconfig) {
    Path path = Path.of(kubeconfig);
    if (!Files.isReadable(path)) {
      usage("--kubeconfig " + kubeconfig + " is not a readable file");
    }
    try {
      return Config.fromKubeconfig(Files.readString(path));
    } catch (java.io.IOException e) {
      usage("--kubeconfig " + kubeconfig + " cannot be read: " + e.getMessage());
      return null;
    }
  }

  private static String value(String[] args, int i, String flag) {
    if (i >= args.length) {
      usage(flag + " needs a value");
    }
    return args[i];
  }

  private static void usage(String problem) {
    System.err.println("local-pods: " + problem);
    System.err.println("usage: local-pods --kubeconfig FILE --namespace NS --selector app=x --workdir DIR "
        + "[--container NAME] -- COMMAND...");
    System.exit(2);
  }
}
