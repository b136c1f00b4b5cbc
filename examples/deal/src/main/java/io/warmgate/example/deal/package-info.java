/**
 * The example domain: ad deals with their advertiser, ad candidates and targeting, read from Cloud
 * Spanner by {@link io.warmgate.example.deal.DealOrigin} (built on the generic
 * {@link io.warmgate.spanner.SpannerOrigin}), and {@link io.warmgate.example.deal.DealSeeder},
 * which writes deterministic deals for tests, benchmarks and the local demo. Shared by the
 * deal-service sample, the benchmarks and the end-to-end tests.
 */
package io.warmgate.example.deal;
