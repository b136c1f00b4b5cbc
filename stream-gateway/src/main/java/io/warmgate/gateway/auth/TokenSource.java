package io.warmgate.gateway.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where one role's bearer tokens come from: a variable holding them (comma- or line-separated,
 * e.g. from a {@code secretKeyRef}) or a file holding one a line (a mounted Secret, re-read
 * when it changes; blank lines and lines starting with {@code #} are skipped). Immutable.
 *
 * <p>A token is {@value #MIN_LENGTH} to {@value #MAX_LENGTH} visible ASCII characters without
 * commas; shorter ones are refused as guessable. Messages name the variable and the line, never
 * the token.
 */
public final class TokenSource {

  /** Fewest characters of a token. */
  public static final int MIN_LENGTH = 16;
  /** Most characters of a token. */
  public static final int MAX_LENGTH = 4096;

  private final String variable;
  private final String inline;
  private final Path file;

  private TokenSource(String variable, String inline, Path file) {
    this.variable = Objects.requireNonNull(variable, "variable");
    this.inline = inline;
    this.file = file;
  }

  /** Tokens given as the value of {@code variable}. */
  public static TokenSource inline(String variable, String value) {
    return new TokenSource(variable, Objects.requireNonNull(value, "value"), null);
  }

  /** Tokens in the file {@code path}, named by {@code variable}. */
  public static TokenSource file(String variable, Path path) {
    return new TokenSource(variable, null, Objects.requireNonNull(path, "path"));
  }

  /** The variable that names these tokens. */
  public String variable() {
    return variable;
  }

  /** The file, or empty for tokens given inline. */
  public Optional<Path> path() {
    return Optional.ofNullable(file);
  }

  /**
   * Reads and checks the tokens.
   *
   * @throws IllegalArgumentException naming the variable (and line) when the file cannot be read,
   *     holds no token, or a token is malformed
   */
  public List<String> read() {
    String text;
    if (file == null) {
      text = inline.replace(',', '\n');
    } else {
      try {
        text = Files.readString(file, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new IllegalArgumentException(variable + "=" + file + " cannot be read (" + e
            + "): mount the Secret holding the tokens there");
      }
    }
    List<String> tokens = new ArrayList<>();
    String[] lines = text.split("\r\n|\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty() || (file != null && line.startsWith("#"))) {
        continue;
      }
      String where = file == null ? variable + " (token " + (tokens.size() + 1) + ")"
          : variable + "=" + file + " line " + (i + 1);
      if (line.length() < MIN_LENGTH || line.length() > MAX_LENGTH) {
        throw new IllegalArgumentException(where + " holds a token of " + line.length()
            + " characters: use " + MIN_LENGTH + " to " + MAX_LENGTH
            + " random characters, for example from openssl rand -hex 32");
      }
      if (!line.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
        throw new IllegalArgumentException(where + " holds a token with a blank or a character "
            + "outside visible ASCII: use letters, digits and punctuation, one token a line");
      }
      tokens.add(line);
    }
    if (tokens.isEmpty()) {
      throw new IllegalArgumentException((file == null ? variable : variable + "=" + file)
          + " holds no token: put one token a line (two while rotating)");
    }
    return List.copyOf(tokens);
  }

  @Override
  public String toString() {
    return file == null ? variable + " (values redacted)" : variable + "=" + file;
  }
}
