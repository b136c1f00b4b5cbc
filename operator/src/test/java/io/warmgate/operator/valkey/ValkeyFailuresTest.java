package io.warmgate.operator.valkey;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import java.util.stream.Stream;

class ValkeyFailuresTest {

  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of(new RedisConnectionException("Unable to connect to valkey:6379",
            new ConnectException("Connection refused")), "ConnectionRefused"),
        Arguments.of(new RedisConnectionException("Unable to connect",
            new UnknownHostException("valkey")), "UnknownHost"),
        Arguments.of(new RedisConnectionException("Unable to connect",
            new RedisCommandExecutionException("WRONGPASS invalid username-password pair")),
            "AuthFailed"),
        Arguments.of(new RedisCommandExecutionException("NOAUTH Authentication required."),
            "AuthFailed"),
        Arguments.of(new RedisConnectionException("Unable to connect",
            new SSLHandshakeException("PKIX path building failed")), "TlsFailed"),
        Arguments.of(new RedisConnectionException("Unable to connect",
            new io.netty.handler.ssl.NotSslRecordException("not an SSL/TLS record: 2d4552")),
            "TlsMismatch"),
        Arguments.of(new RedisCommandTimeoutException("Command timed out after 1 second(s)"),
            "Timeout"),
        Arguments.of(new IllegalStateException("something else"), "ConnectionFailed"));
  }

  @Test
  void aMissingPasswordIsToldFromAWrongOne() {
    RedisCommandExecutionException noAuth =
        new RedisCommandExecutionException("NOAUTH Authentication required.");

    assertThat(ValkeyFailures.classify("valkey:6379", noAuth, false).message())
        .contains("requires a password").contains("spec.valkey.passwordSecretKeyRef");
    assertThat(ValkeyFailures.classify("valkey:6379", noAuth, true).message())
        .contains("refused the credentials");
  }

  @Test
  void anUntrustedCertificateNamesTheCaField() {
    ProbeResult result = ValkeyFailures.classify("valkey:6379", new RedisConnectionException(
        "Unable to connect", new SSLHandshakeException("PKIX path building failed: unable to "
            + "find valid certification path to requested target")), false);

    assertThat(result.message()).contains("spec.valkey.tlsCaSecretRef");
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("failures")
  void classifiesAndNamesTheAddress(Throwable failure, String reason) {
    ProbeResult result = ValkeyFailures.classify("valkey:6379", failure, true);

    assertThat(result.reachable()).isFalse();
    assertThat(result.reason()).isEqualTo(reason);
    assertThat(result.message()).contains("valkey:6379");
  }
}
