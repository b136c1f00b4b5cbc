package io.warmgate.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.warmgate.gateway.auth.ClientAuth.Decision;
import io.warmgate.gateway.auth.ClientAuth.Role;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientAuthTest {

  static final String STREAM = "stream-token-0123456789";
  static final String BURST = "burst-token-0123456789";

  @Test
  void eachRoleIsAdmittedByItsOwnTokensOnly() {
    ClientAuth auth = ClientAuth.tokens(TokenSource.inline("S", STREAM + ", other-stream-token-xyz"),
        Optional.of(TokenSource.inline("B", BURST)));
    assertThat(auth.check(Role.STREAM, "Bearer " + STREAM)).isEqualTo(Decision.ADMITTED);
    assertThat(auth.check(Role.STREAM, "bearer other-stream-token-xyz")).isEqualTo(Decision.ADMITTED);
    assertThat(auth.check(Role.BURST, "Bearer " + BURST)).isEqualTo(Decision.ADMITTED);
    assertThat(auth.check(Role.STREAM, "Bearer " + BURST)).isEqualTo(Decision.FORBIDDEN);
    assertThat(auth.check(Role.BURST, "Bearer " + STREAM)).isEqualTo(Decision.FORBIDDEN);
    assertThat(auth.check(Role.STREAM, "Bearer " + STREAM + "x")).isEqualTo(Decision.INVALID);
    assertThat(auth.check(Role.STREAM, "Bearer ")).isEqualTo(Decision.INVALID);
    assertThat(auth.check(Role.STREAM, "Basic " + STREAM)).isEqualTo(Decision.MISSING);
    assertThat(auth.check(Role.STREAM, null)).isEqualTo(Decision.MISSING);
  }

  @Test
  void withoutBurstTokensNobodySetsTheFlag() {
    ClientAuth auth = ClientAuth.tokens(TokenSource.inline("S", STREAM), Optional.empty());
    assertThat(auth.burstClosed()).isTrue();
    assertThat(auth.check(Role.BURST, "Bearer " + STREAM)).isEqualTo(Decision.FORBIDDEN);
    assertThat(auth.check(Role.BURST, "Bearer some-other-token-0000")).isEqualTo(Decision.FORBIDDEN);
  }

  @Test
  void noneAdmitsEverything() {
    assertThat(ClientAuth.none().check(Role.BURST, null)).isEqualTo(Decision.ADMITTED);
  }

  @Test
  void aFileThatBecomesUnusableLeavesTheLastTokensInForce(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tokens");
    Files.writeString(file, "# rotated 2026-12-01\n" + STREAM + "\n\n");
    ClientAuth auth = ClientAuth.tokens(TokenSource.file("F", file), Optional.empty());
    Files.writeString(file, "short\n");
    auth.reload();
    assertThat(auth.check(Role.STREAM, "Bearer " + STREAM)).isEqualTo(Decision.ADMITTED);
    Files.delete(file);
    auth.reload();
    assertThat(auth.check(Role.STREAM, "Bearer " + STREAM)).isEqualTo(Decision.ADMITTED);
    Files.writeString(file, "a-new-token-after-rotation\n");
    auth.reload();
    assertThat(auth.check(Role.STREAM, "Bearer " + STREAM)).isEqualTo(Decision.INVALID);
    assertThat(auth.check(Role.STREAM, "Bearer a-new-token-after-rotation")).isEqualTo(Decision.ADMITTED);
  }

  @Test
  void malformedTokensAreRefusedNamingTheLineButNotTheToken(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tokens");
    Files.writeString(file, STREAM + "\nshort-secret\n");
    assertThatThrownBy(() -> TokenSource.file("WARMGATE_GATEWAY_STREAM_TOKENS_FILE", file).read())
        .hasMessageContaining("WARMGATE_GATEWAY_STREAM_TOKENS_FILE=" + file + " line 2")
        .hasMessageContaining("12 characters").hasMessageContaining("16 to 4096")
        .hasMessageNotContaining("short-secret");
    assertThatThrownBy(() -> TokenSource.inline("V", "with blank inside-0123456789").read())
        .hasMessageContaining("V (token 1)").hasMessageContaining("blank");
    assertThatThrownBy(() -> TokenSource.inline("V", " , ").read()).hasMessageContaining("V holds no token");
    assertThatThrownBy(() -> TokenSource.file("F", dir.resolve("missing")).read())
        .hasMessageContaining("cannot be read").hasMessageContaining("mount the Secret");
  }
}
