package io.warmgate.agent.schema;

import com.fasterxml.jackson.annotation.JacksonAnnotation;
import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import java.lang.annotation.Annotation;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** Writes the canonical, order-independent description of a type for {@link SchemaHash}. */
final class TypeDescriber {

  /** Annotations that document or order properties but do not change what is written. */
  private static final Set<Class<? extends Annotation>> IGNORED = Set.of(
      JsonPropertyOrder.class, JsonPropertyDescription.class, JsonClassDescription.class);

  private final SerializationConfig config;
  private final Set<Class<?>> visiting = new HashSet<>();

  TypeDescriber(SerializationConfig config) {
    this.config = config;
  }

  String describe(JavaType type) {
    Class<?> raw = type.getRawClass();
    if (type.isPrimitive()) {
      return raw.getName();
    }
    if (type.isArrayType()) {
      return "array<" + describe(type.getContentType()) + ">";
    }
    if (type.isMapLikeType()) {
      return raw.getName() + "<" + describe(type.getKeyType()) + "," + describe(type.getContentType()) + ">";
    }
    if (type.isCollectionLikeType() || type.isReferenceType()) {
      return raw.getName() + "<" + describe(type.getContentType()) + ">";
    }
    if (raw.isEnum()) {
      return describeEnum(raw);
    }
    if (isJdkType(raw) || raw == Object.class) {
      return raw.getName();
    }
    return describeBean(type);
  }

  private String describeBean(JavaType type) {
    Class<?> raw = type.getRawClass();
    if (!visiting.add(raw)) {
      return "ref(" + raw.getName() + ")";
    }
    try {
      BeanDescription bean = config.introspect(type);
      List<String> properties = new ArrayList<>();
      for (BeanPropertyDefinition property : bean.findProperties()) {
        if (!property.couldSerialize()) {
          continue;
        }
        Set<String> annotations = new TreeSet<>();
        addAnnotations(annotations, property.getAccessor());
        addAnnotations(annotations, property.getField());
        addAnnotations(annotations, property.getConstructorParameter());
        properties.add(property.getName() + String.join("", annotations) + ":"
            + describe(property.getPrimaryType()));
      }
      properties.sort(Comparator.naturalOrder());
      Set<String> classAnnotations = new TreeSet<>();
      for (Annotation a : raw.getAnnotations()) {
        if (isRelevant(a)) {
          classAnnotations.add(render(a));
        }
      }
      return String.join("", classAnnotations) + "{" + String.join(",", properties) + "}";
    } finally {
      visiting.remove(raw);
    }
  }

  private String describeEnum(Class<?> raw) {
    Set<String> constants = new TreeSet<>();
    for (Field field : raw.getDeclaredFields()) {
      if (!field.isEnumConstant()) {
        continue;
      }
      JsonProperty renamed = field.getAnnotation(JsonProperty.class);
      String name = renamed != null && !renamed.value().isEmpty() ? renamed.value() : field.getName();
      constants.add(quote(name));
    }
    Set<String> annotations = new TreeSet<>();
    for (Annotation a : raw.getAnnotations()) {
      if (isRelevant(a)) {
        annotations.add(render(a));
      }
    }
    for (Method m : raw.getDeclaredMethods()) {
      for (Annotation a : m.getAnnotations()) {
        if (isRelevant(a)) {
          annotations.add(m.getName() + render(a));
        }
      }
    }
    return "enum" + String.join("", annotations) + "(" + String.join(",", constants) + ")";
  }

  private static void addAnnotations(Set<String> out, AnnotatedMember member) {
    if (member == null) {
      return;
    }
    // Jackson's merged view: the member's own annotations plus mix-ins.
    for (Annotation a : member.annotations()) {
      if (isRelevant(a)) {
        out.add(render(a));
      }
    }
  }

  private static boolean isRelevant(Annotation a) {
    Class<? extends Annotation> type = a.annotationType();
    return type.isAnnotationPresent(JacksonAnnotation.class) && !IGNORED.contains(type);
  }

  /** Renders the annotation type and its non-default elements, sorted by name. */
  static String render(Annotation a) {
    Class<? extends Annotation> type = a.annotationType();
    Method[] elements = type.getDeclaredMethods();
    Arrays.sort(elements, Comparator.comparing(Method::getName));
    List<String> parts = new ArrayList<>();
    for (Method element : elements) {
      if (type == JsonProperty.class && element.getName().equals("index")) {
        continue;
      }
      Object value;
      try {
        element.setAccessible(true);
        value = element.invoke(a);
      } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
        throw new IllegalArgumentException("cannot read " + type.getName() + "." + element.getName(), e);
      }
      Object fallback = element.getDefaultValue();
      if (fallback != null && valueEquals(value, fallback)) {
        continue;
      }
      parts.add(element.getName() + "=" + renderValue(value));
    }
    return "@" + type.getName() + "(" + String.join(",", parts) + ")";
  }

  private static boolean valueEquals(Object a, Object b) {
    if (a.getClass().isArray()) {
      return renderValue(a).equals(renderValue(b));
    }
    return a.equals(b);
  }

  private static String renderValue(Object value) {
    if (value instanceof String s) {
      return quote(s);
    }
    if (value instanceof Class<?> c) {
      return c.getName() + ".class";
    }
    if (value instanceof Enum<?> e) {
      return e.name();
    }
    if (value instanceof Annotation a) {
      return render(a);
    }
    if (value.getClass().isArray()) {
      int n = Array.getLength(value);
      List<String> items = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        items.add(renderValue(Array.get(value, i)));
      }
      return items.stream().collect(Collectors.joining(",", "[", "]"));
    }
    return String.valueOf(value);
  }

  private static String quote(String s) {
    return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  private static boolean isJdkType(Class<?> raw) {
    String name = raw.getName();
    return name.startsWith("java.") || name.startsWith("javax.");
  }
}
