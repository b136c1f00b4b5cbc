package io.warmgate.bench.release;

import io.warmgate.example.deal.Deal;

/**
 * The cached type of the new version: a Deal plus one field, so its schema hash differs and the
 * new pods read and write a key space of their own, as after a real schema change.
 *
 * @param deal the deal as the old version cached it
 * @param pacing how the new version paces the deal's delivery
 */
record NewDeal(Deal deal, String pacing) {}
