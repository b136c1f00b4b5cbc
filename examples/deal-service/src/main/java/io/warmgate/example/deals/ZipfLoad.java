package io.warmgate.example.deals;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Drives Zipf-distributed {@code GET /deals/{id}} traffic at the deal-service processes listed in a
 * local-pods {@code pods.tsv} (re-read every second, so pods that come and go are followed), at a
 * fixed total rate, and prints one line of counts per interval.
 *
 * <p>Usage: {@code ZipfLoad --pods FILE [--deals 5000] [--skew 1.1] [--rate 200] [--duration 60s]
 * [--seed 42]}; a duration of {@code 0} runs until stopped.
 */
public final class ZipfLoad {

  private final List<Integer> ports = new ArrayList<>();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final AtomicLong ok = new AtomicLong();
  private final AtomicLong notFound = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();

  private ZipfLoad() {}

  public static void main(String[] args) throws Exception {
    Path pods = null;
    int deals = 5000;
    double skew = 1.1;
    int rate = 200;
    Duration duration = Duration.ofSeconds(60);
    long seed = 42;
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--pods" -> pods = Path.of(value);
        case "--deals" -> deals = Integer.parseInt(value);
        case "--skew" -> skew = Double.parseDouble(value);
        case "--rate" -> rate = Integer.parseInt(value);
        case "--duration" -> duration = parseDuration(value);
        case "--seed" -> seed = Long.parseLong(value);
        default -> throw new IllegalArgumentException("unknown argument '" + args[i]
            + "': use --pods FILE [--deals N] [--skew S] [--rate R] [--duration 60s] [--seed N]");
      }
      i++;
    }
    if (pods == null) {
      throw new IllegalArgumentException("--pods FILE is required (local-pods writes <workdir>/pods.tsv)");
    }
    new ZipfLoad().run(pods, new Zipf(deals, skew), rate, duration, seed);
  }

  private static Duration parseDuration(String value) {
    if (value.matches("[0-9]+s")) {
      return Duration.ofSeconds(Long.parseLong(value.substring(0, value.length() - 1)));
    }
    if (value.matches("[0-9]+m")) {
      return Duration.ofMinutes(Long.parseLong(value.substring(0, value.length() - 1)));
    }
    if (value.equals("0")) {
      return Duration.ZERO;
    }
    throw new IllegalArgumentException("--duration '" + value + "' is not a duration: use e.g. 90s or 5m, or 0");
  }

  private void run(Path podsFile, Zipf zipf, int rate, Duration duration, long seed) throws InterruptedException {
    ExecutorService senders = Executors.newFixedThreadPool(16);
    SplittableRandom random = new SplittableRandom(seed);
    long start = System.nanoTime();
    long end = duration.isZero() ? Long.MAX_VALUE : start + duration.toNanos();
    long intervalNanos = TimeUnit.SECONDS.toNanos(1) / Math.max(1, rate);
    long next = start;
    long lastReport = start;
    refreshPorts(podsFile);
    while (System.nanoTime() < end) {
      long now = System.nanoTime();
      if (now - lastReport >= TimeUnit.SECONDS.toNanos(1)) {
        refreshPorts(podsFile);
        System.out.printf(Locale.ROOT, "%5.0fs pods=%d ok=%d notFound=%d failed=%d%n",
            (now - start) / 1e9, ports.size(), ok.get(), notFound.get(), failed.get());
        lastReport = now;
      }
      if (now < next) {
        TimeUnit.NANOSECONDS.sleep(Math.min(next - now, 50_000_000L));
        continue;
      }
      next += intervalNanos;
      if (ports.isEmpty()) {
        continue;
      }
      int port = ports.get(random.nextInt(ports.size()));
      String id = String.format("deal-%06d", zipf.next(random));
      senders.execute(() -> send(port, id));
    }
    senders.shutdown();
    senders.awaitTermination(10, TimeUnit.SECONDS);
    System.out.printf(Locale.ROOT, "done: ok=%d notFound=%d failed=%d%n", ok.get(), notFound.get(), failed.get());
  }

  private void refreshPorts(Path podsFile) {
    try {
      List<Integer> fresh = new ArrayList<>();
      if (Files.exists(podsFile)) {
        for (String line : Files.readAllLines(podsFile)) {
          String[] fields = line.split("\t");
          if (fields.length >= 2) {
            fresh.add(Integer.parseInt(fields[1]));
          }
        }
      }
      ports.clear();
      ports.addAll(fresh);
    } catch (IOException | NumberFormatException e) {
      // The file is replaced atomically; a bad read keeps the previous ports until the next second.
    }
  }

  private void send(int port, String id) {
    try {
      HttpResponse<Void> response = http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/deals/" + id))
              .timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.discarding());
      (response.statusCode() == 200 ? ok : response.statusCode() == 404 ? notFound : failed).incrementAndGet();
    } catch (IOException e) {
      failed.incrementAndGet();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
