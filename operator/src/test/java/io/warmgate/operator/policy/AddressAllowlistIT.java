package io.warmgate.operator.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.warmgate.operator.OperatorSettings;
import io.warmgate.operator.WarmgateOperator;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.testing.RedisExtension;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 28 item 10: a policy cannot make the operator connect to an address outside its
 * allowlist. The allowlist here admits the test Redis on 127.0.0.1 only; the "internal service"
 * is a listener on another loopback address, 127.0.0.2, that answers every connection with a
 * banner the status must never repeat.
 */
class AddressAllowlistIT {

  static final String BANNER = "SSH-2.0-internal-service-banner";

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  static WarmgateOperator operator;
  static Policies policies;
  static ServerSocket internal;
  static final AtomicInteger accepted = new AtomicInteger();

  @BeforeAll
  static void start() throws IOException {
    internal = new ServerSocket();
    internal.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
    Thread answer = new Thread(() -> {
      while (!internal.isClosed()) {
        try (Socket client = internal.accept(); OutputStream out = client.getOutputStream()) {
          accepted.incrementAndGet();
          out.write((BANNER + "\r\n").getBytes(StandardCharsets.US_ASCII));
          out.flush();
        } catch (IOException e) {
          // Closed at the end of the test.
        }
      }
    }, "internal-service");
    answer.setDaemon(true);
    answer.start();

    api.applyCrd(ApiServer.cachePolicyCrd());
    policies = new Policies(api.client());
    operator = WarmgateOperator.start(OperatorSettings.fromEnvironment(Map.of(
        "WARMGATE_LEADER_ELECTION", "false",
        "WARMGATE_HTTP_PORT", "0",
        "WARMGATE_VALKEY_RECHECK_INTERVAL", "1s",
        "WARMGATE_VALKEY_TIMEOUT", "1s",
        "WARMGATE_VALKEY_ALLOWED_ADDRESSES", "*.svc,127.0.0.1:" + redis.port())), api.client());
  }

  @AfterAll
  static void stop() throws IOException {
    if (operator != null) {
      operator.close();
    }
    internal.close();
  }

  @Test
  void anAddressOutsideTheAllowlistIsRefusedWithoutAConnection() {
    String ns = api.newNamespace("allow");
    policies.deployment(ns, "app");
    String address = "127.0.0.2:" + internal.getLocalPort();

    policies.policy(ns, "probe", TargetKind.Deployment, "app", address, null);

    Condition l2 = policies.awaitCondition(ns, "probe", Conditions.L2_REACHABLE, "False",
        "AddressNotAllowed");
    assertThat(l2.getMessage()).contains(address).contains("*.svc,127.0.0.1:" + redis.port())
        .contains("valkey.allowedAddresses").doesNotContain(BANNER);
    policies.awaitCondition(ns, "probe", Conditions.READY, "False", "AddressNotAllowed");
    // Several recheck intervals: the operator never connects.
    await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(accepted).hasValue(0));
    assertThat(policies.events(ns, "probe")).allSatisfy(e ->
        assertThat(e.getMessage()).doesNotContain(BANNER));
  }

  @Test
  void anAllowedAddressIsProbedAsBefore() {
    String ns = api.newNamespace("allow");
    policies.deployment(ns, "app");

    policies.policy(ns, "deals", TargetKind.Deployment, "app", "127.0.0.1:" + redis.port(), null);

    policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
  }
}
