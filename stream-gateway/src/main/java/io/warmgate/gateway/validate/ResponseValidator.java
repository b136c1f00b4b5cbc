package io.warmgate.gateway.validate;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.json.schema.Draft;
import io.vertx.json.schema.JsonSchema;
import io.vertx.json.schema.JsonSchemaOptions;
import io.vertx.json.schema.OutputFormat;
import io.vertx.json.schema.OutputUnit;
import io.vertx.json.schema.Validator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Checks a completed response against its template's JSON Schema (draft 2020-12), loaded from
 * {@code <dir>/<template>.schema.json}. The response is the concatenation of its chunks' data.
 *
 * <p>Templates without a schema file are not validated. Immutable and thread-safe.
 */
public final class ResponseValidator {

  private static final String SUFFIX = ".schema.json";
  private final Map<String, Validator> validators;

  private ResponseValidator(Map<String, Validator> validators) {
    this.validators = Map.copyOf(validators);
  }

  /** A validator that validates nothing. */
  public static ResponseValidator none() {
    return new ResponseValidator(Map.of());
  }

  /**
   * Loads every {@code *.schema.json} of {@code dir}.
   *
   * @throws IllegalArgumentException naming the file if one is not a JSON object
   * @throws UncheckedIOException if the directory cannot be read
   */
  public static ResponseValidator fromDirectory(Path dir) {
    Map<String, Validator> validators = new HashMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        if (name.endsWith(SUFFIX) && Files.isRegularFile(file)) {
          String template = name.substring(0, name.length() - SUFFIX.length());
          validators.put(template, compile(file, Files.readString(file, StandardCharsets.UTF_8)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read schema directory " + dir, e);
    }
    return new ResponseValidator(validators);
  }

  /** A validator with one schema, given as JSON text, for {@code template}. */
  public static ResponseValidator of(String template, String schemaJson) {
    return new ResponseValidator(Map.of(template, compile(Path.of(template + SUFFIX), schemaJson)));
  }

  /** True if {@code template} has a schema, so its responses are held until validated. */
  public boolean validates(String template) {
    return validators.containsKey(template);
  }

  /**
   * Validates {@code response} for {@code template}.
   *
   * @return empty if valid (or the template has no schema), else what is wrong, for subscribers
   */
  public Optional<String> violation(String template, String response) {
    Validator validator = validators.get(template);
    if (validator == null) {
      return Optional.empty();
    }
    Object instance;
    try {
      instance = Json.decodeValue(response);
    } catch (DecodeException e) {
      return Optional.of("the response of template " + template + " is not JSON: " + e.getMessage());
    }
    OutputUnit result = validator.validate(instance);
    if (Boolean.TRUE.equals(result.getValid())) {
      return Optional.empty();
    }
    StringBuilder message = new StringBuilder("the response of template ").append(template)
        .append(" violates its schema");
    if (result.getErrors() != null) {
      result.getErrors().stream().limit(3).forEach(e -> message.append("; at ")
          .append(e.getInstanceLocation().isEmpty() ? "/" : e.getInstanceLocation())
          .append(": ").append(e.getError()));
    }
    return Optional.of(message.toString());
  }

  private static Validator compile(Path file, String text) {
    JsonObject schema;
    try {
      schema = new JsonObject(text);
    } catch (DecodeException | ClassCastException e) {
      throw new IllegalArgumentException("schema file " + file + " is not a JSON object: fix it or "
          + "remove it from WARMGATE_GATEWAY_SCHEMA_DIR (" + e.getMessage() + ")", e);
    }
    return Validator.create(JsonSchema.of(schema), new JsonSchemaOptions()
        .setDraft(Draft.DRAFT202012)
        .setBaseUri("https://warmgate.io/schemas/")
        .setOutputFormat(OutputFormat.Basic));
  }
}
