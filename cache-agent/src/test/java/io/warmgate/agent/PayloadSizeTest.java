package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.warmgate.agent.deal.Deal;
import io.warmgate.agent.deal.Deals;
import io.warmgate.agent.l2.Envelope;
import org.junit.jupiter.api.Test;

/** The envelope format was chosen by these numbers; the test keeps the choice honest. */
class PayloadSizeTest {

  @Test
  void smileEnvelopeOfATypicalDealIsSmallerThanJsonAndRoundTrips() throws Exception {
    Deal deal = Deals.deal("deal-000042", 3, 2);
    ValueCodec<Deal> smile = new ValueCodec<>(Deal.class, ValueCodec.defaultMapper());
    ValueCodec<Deal> json =
        new ValueCodec<>(Deal.class, new ObjectMapper().registerModule(new JavaTimeModule()));

    int smileBytes = Envelope.found("0123456789ab", 1L, smile.encode(deal)).encode().length;
    int jsonBytes = Envelope.found("0123456789ab", 1L, json.encode(deal)).encode().length;
    System.out.printf("typical Deal (3 ads, 2 rules) envelope: smile=%d bytes, json=%d bytes%n",
        smileBytes, jsonBytes);

    assertThat(smileBytes).isLessThan(jsonBytes);
    assertThat(smile.decode(smile.encode(deal))).as("lossless, microseconds included").isEqualTo(deal);
  }
}
