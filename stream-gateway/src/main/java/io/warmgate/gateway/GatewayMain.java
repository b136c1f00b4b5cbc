package io.warmgate.gateway;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.warmgate.gateway.config.GatewayConfig;
import org.slf4j.LoggerFactory;

/** Runs the gateway as a process, configured by {@code WARMGATE_GATEWAY_*} variables. */
public final class GatewayMain {

  private GatewayMain() {}

  /** Starts the gateway and stops it on SIGTERM; exits with 2 on a configuration error. */
  public static void main(String[] args) {
    // The process's own logging setup; a library user's logback.xml is never overridden.
    if (System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", "warmgate-gateway-logback.xml");
    }
    GatewayConfig config;
    try {
      config = GatewayConfig.fromEnvironment();
    } catch (IllegalArgumentException e) {
      System.err.println("warmgate stream gateway: " + e.getMessage());
      System.exit(2);
      return;
    }
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    StreamGateway gateway = StreamGateway.builder(config).meterRegistry(registry)
        .prometheusScrape(registry::scrape).start();
    LoggerFactory.getLogger(GatewayMain.class)
        .info("warmgate stream gateway listening on port {} ({})", gateway.port(), config);
    Runtime.getRuntime().addShutdownHook(new Thread(gateway::close, "warmgate-gateway-shutdown"));
  }
}
