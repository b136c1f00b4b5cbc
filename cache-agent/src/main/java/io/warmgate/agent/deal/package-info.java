/**
 * The Deal domain: ad deals with their advertiser, ad candidates and targeting, read from Cloud
 * Spanner by {@link io.warmgate.agent.deal.SpannerDealOrigin}.
 */
package io.warmgate.agent.deal;
