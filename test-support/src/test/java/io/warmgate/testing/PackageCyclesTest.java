package io.warmgate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PackageCyclesTest {

  @TempDir
  Path root;

  private void source(String pkg, String type, String body) throws IOException {
    Path dir = root.resolve(pkg.replace('.', '/'));
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(type + ".java"), "package " + pkg + ";\n\n" + body);
  }

  @Test
  void layeredPackagesHaveNoCycle() throws IOException {
    source("io.w.app", "Api", "import io.w.app.low.Part;\nimport static io.w.app.low.Part.ONE;\n"
        + "public class Api {}\n");
    source("io.w.app.low", "Part", "import java.util.List;\npublic class Part {}\n");
    assertThat(PackageCycles.find(root, "io.w.app")).isEmpty();
    PackageCycles.assertNone(root, "io.w.app");
  }

  @Test
  void aCycleIsListedWithTheUsesThatMakeIt() throws IOException {
    source("io.w.app", "Api", "import io.w.app.low.Part;\npublic class Api {}\n");
    source("io.w.app.low", "Part", "import io.w.app.Api.Nested;\npublic class Part {}\n");
    assertThat(PackageCycles.find(root, "io.w.app")).containsExactly("""
        cycle among io.w.app, io.w.app.low:
          io.w.app → io.w.app.low
            io/w/app/Api.java → io.w.app.low.Part
          io.w.app.low → io.w.app
            io/w/app/low/Part.java → io.w.app.Api""");
    assertThatThrownBy(() -> PackageCycles.assertNone(root, "io.w.app"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("1 package cycle(s)")
        .hasMessageContaining("io/w/app/low/Part.java → io.w.app.Api");
  }

  @Test
  void fullyQualifiedNamesAndWildcardsCountButCommentsAndStringsDoNot() throws IOException {
    source("io.w.a", "A", "public class A {\n  io.w.b.B b = new io.w.b.B();\n}\n");
    source("io.w.b", "B", "import io.w.c.*;\npublic class B {}\n");
    source("io.w.c", "C", "/** See {@link io.w.a.A}. */\npublic class C {\n"
        + "  // io.w.a.A\n  String s = \"io.w.a.A\";\n  String t = \"\"\"\n      io.w.a.A\n      \"\"\";\n"
        + "  char q = '\"';\n}\n");
    assertThat(PackageCycles.find(root, "io.w")).isEmpty();

    source("io.w.c", "D", "public class D {\n  Object a = io.w.a.A.class;\n}\n");
    assertThat(PackageCycles.find(root, "io.w")).singleElement().asString()
        .startsWith("cycle among io.w.a, io.w.b, io.w.c:")
        .contains("io/w/a/A.java → io.w.b.B", "io/w/b/B.java → io.w.c.*",
            "io/w/c/D.java → io.w.a.A")
        .doesNotContain("C.java");
  }

  @Test
  void packagesOutsideTheRootAreLeftOut() throws IOException {
    source("io.w.a", "A", "import io.x.B;\npublic class A {}\n");
    source("io.x", "B", "import io.w.a.A;\npublic class B {}\n");
    assertThat(PackageCycles.find(root, "io.w")).isEmpty();
    assertThat(PackageCycles.find(root, "io")).hasSize(1);
  }
}
