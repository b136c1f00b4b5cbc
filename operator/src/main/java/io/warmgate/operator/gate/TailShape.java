package io.warmgate.operator.gate;

import java.util.ArrayList;
import java.util.List;

/**
 * How lookup rates fall past the hot set, where no id is tracked: the {@code i}-th hottest id is
 * looked up {@code rate × (i / rank)^(−exponent)} times a second for {@code i > rank}, the power
 * law (Zipf's) the hot set's own colder ranks follow. The origin forecast needs it because a tail
 * id looked up several times in a second is read once: counting tail lookups as reads
 * overestimates a release by the tail's multiplicity, which grows with the fleet's traffic.
 *
 * @param rank the hot set's size k: the tail starts at rank k + 1
 * @param rate the fitted lookups per second at rank k
 * @param exponent the fitted power-law exponent, between 0 and {@link #MAX_EXPONENT}
 */
public record TailShape(int rank, double rate, double exponent) {

  /** Fewest positive rates a fit needs. */
  static final int MIN_POINTS = 8;
  /** Steepest fall fitted: beyond it the tail's lookups are negligible anyway. */
  static final double MAX_EXPONENT = 5;
  /** Each block of tail ids is this much wider than its rank, so blocks grow geometrically. */
  static final double BLOCK_GROWTH = 0.01;
  /** Most blocks a tail is cut into; what they leave is counted as ids looked up once. */
  static final int MAX_BLOCKS = 5_000;
  /** Rates below this (once in about 30 years) end the tail. */
  static final double MIN_RATE = 1e-9;

  /**
   * Tail ids of one lookup rate.
   *
   * @param rate lookups per second of each
   * @param ids how many (not a whole number within a block's share)
   */
  public record Block(double rate, double ids) {}

  /**
   * The tail's lookups split into ids.
   *
   * @param blocks ids by rate, hottest first
   * @param unexplained lookups per second the power law does not account for before it ends:
   *     each is taken to be of an id looked up once (the most reads they can cost)
   */
  public record Ids(List<Block> blocks, double unexplained) {}

  /**
   * Fits the shape to the hot set's rates, hottest first, by least squares of log rate on log
   * rank over its colder three quarters (ranks k/4 to k, nearest the tail); null when fewer than
   * {@link #MIN_POINTS} of them are positive or they do not fall with rank.
   */
  public static TailShape of(List<Double> hotRates) {
    int k = hotRates.size();
    double sx = 0;
    double sy = 0;
    double sxx = 0;
    double sxy = 0;
    int n = 0;
    for (int i = Math.max(1, k / 4); i <= k; i++) {
      double r = hotRates.get(i - 1);
      if (!(r > 0) || Double.isInfinite(r)) {
        continue;
      }
      double x = Math.log(i);
      double y = Math.log(r);
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
      n++;
    }
    double spread = n * sxx - sx * sx;
    if (n < MIN_POINTS || !(spread > 0)) {
      return null;
    }
    double slope = (n * sxy - sx * sy) / spread;
    double intercept = (sy - slope * sx) / n;
    double exponent = Math.max(0, Math.min(MAX_EXPONENT, -slope));
    return new TailShape(k, Math.exp(intercept + slope * Math.log(k)), exponent);
  }

  /**
   * The ids past the hot set that {@code lookups} per second are of: the next ranks, each at its
   * rate, until their rates add up to {@code lookups}.
   */
  public Ids ids(double lookups) {
    List<Block> blocks = new ArrayList<>();
    double left = lookups;
    double from = rank;
    for (int b = 0; left > 0 && b < MAX_BLOCKS; b++) {
      double width = Math.max(1, Math.floor(from * BLOCK_GROWTH));
      double r = rate * Math.pow((from + (width + 1) / 2) / Math.max(1, rank), -exponent);
      if (!(r >= MIN_RATE)) {
        break;
      }
      double ids = Math.min(width, left / r);
      blocks.add(new Block(r, ids));
      left -= ids * r;
      from += width;
    }
    return new Ids(blocks, Math.max(0, left));
  }
}
