package io.warmgate.bench.common;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SummaryTest {

  @Test
  void everyRowSaysWhetherItsBarWasMet() {
    Summary summary = new Summary();
    summary.add("reads per id", "8.00", "1.00", "≤ 1.02", true);
    summary.add("p99", "300 s (a constant)", "2,400 ms", "≤ 2000 ms", false);
    summary.add("operator RSS", "180 MiB", "240 MiB");

    assertThat(summary.markdown()).isEqualTo("""
        | what | baseline | warmgate | bar | met |
        | --- | ---: | ---: | ---: | :---: |
        | reads per id | 8.00 | 1.00 | ≤ 1.02 | met |
        | p99 | 300 s (a constant) | 2,400 ms | ≤ 2000 ms | **missed** |
        | operator RSS | 180 MiB | 240 MiB |  | – |
        """);
  }
}
