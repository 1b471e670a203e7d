package com.fairpix.ingest.admission;

/**
 * What admission may hand out in a pool right now: the farm capacity C it lends from and each
 * tenant's guaranteed rate (its share of what the pool does). Read on every decision, so an
 * implementation answers from memory (the ingest's {@code FarmCapacity} refreshes it in the
 * background, from the tenants' measured demand: {@link GuaranteeSharing}).
 */
@FunctionalInterface
public interface FarmShare {

    /** How a pool's guarantees are shared when the active tenants' rates add up to more than the pool does ({@code admission.guarantee-sharing}). */
    enum Sharing {
        /**
         * Weighted max-min fair (water-filling) over the tenants' measured demand: a tenant asking
         * less than its weighted share keeps its whole demand, and what it leaves goes to the others
         * (the default; docs/admission.md).
         */
        MAX_MIN,
        /** Every active tenant's rate scaled by one factor, {@code min(1, M ÷ Σ rates)} (before issue 31). */
        PROPORTIONAL;

        /** The setting's spelling: {@code max-min}, {@code proportional}. */
        public String id() { return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'); }
    }

    /**
     * One pool's share. A tenant configured at {@code rate} tokens/s is guaranteed
     * {@link #guarantee(double) guaranteeScale × min(rate, weightCap)}: with proportional sharing
     * the weight cap is infinite (every rate scaled by one factor); with max-min sharing
     * {@code guaranteeScale} is the water level λ and {@code weightCap} the capacity M the
     * guarantees share (a rate above all the pool does claims the whole pool, no more).
     *
     * @param capacity       C, tokens/s: the refill rate of the pool's borrowing bucket and the most
     *                       any ceiling reaches; 0 = unknown or off (no borrowing)
     * @param guaranteeScale factor applied to every tenant's (capped) rate, in (0, 1]: proportional,
     *                       {@code min(1, M ÷ Σ rates)} with M what the pool does (its measured
     *                       capacity, or the pinned C), as Kubernetes APF turns nominal shares into
     *                       seats (KEP-1040); max-min, the level λ of the water-filling
     * @param weightCap      largest rate that counts as a tenant's weight, tokens/s (&gt; 0;
     *                       {@link Double#POSITIVE_INFINITY} = none)
     */
    record Share(double capacity, double guaranteeScale, double weightCap) {
        /** No capacity known: guarantees as configured, no borrowing. */
        public static final Share NONE = new Share(0, 1);

        public Share {
            if (!(capacity >= 0) || Double.isInfinite(capacity)) throw new IllegalArgumentException("capacity must be finite and >= 0: " + capacity);
            if (!(guaranteeScale > 0 && guaranteeScale <= 1)) throw new IllegalArgumentException("guaranteeScale must be in (0, 1]: " + guaranteeScale);
            if (!(weightCap > 0)) throw new IllegalArgumentException("weightCap must be > 0: " + weightCap);
        }

        /** A proportional share: every rate scaled by {@code guaranteeScale}, no weight cap. */
        public Share(double capacity, double guaranteeScale) {
            this(capacity, guaranteeScale, Double.POSITIVE_INFINITY);
        }

        /**
         * The guaranteed rate, tokens/s, of a tenant configured at {@code rate} tokens/s:
         * {@code guaranteeScale × min(rate, weightCap)}, never above {@code rate}. O(1).
         */
        public double guarantee(double rate) {
            return Math.min(rate, guaranteeScale * Math.min(rate, weightCap));
        }

        /** {@link #of(double, double, double)} with guarantees scaled to the capacity itself (a pinned C). */
        public static Share of(double capacity, double guarantees) {
            return of(capacity, capacity, guarantees);
        }

        /**
         * The proportional share for capacity {@code capacity} (what borrowing may reach) and
         * guarantees summing to {@code guarantees}, scaled to {@code guaranteeCapacity} (what the
         * pool does, without the headroom): scale {@code min(1, guaranteeCapacity ÷ guarantees)}, 1
         * when either is unknown (≤ 0). All in tokens/s.
         */
        public static Share of(double capacity, double guaranteeCapacity, double guarantees) {
            double c = capacityOrZero(capacity);
            double base = capacityOrZero(guaranteeCapacity);
            double scale = base > 0 && guarantees > base ? base / guarantees : 1;
            // A scale so small that a guarantee rounds below 0.001 token/s is still positive.
            return new Share(c, Math.max(scale, Double.MIN_NORMAL));
        }

        /**
         * The max-min share: capacity {@code capacity} (C, tokens/s), water level {@code level} of
         * a water-filling of {@code guaranteeCapacity} (M, tokens/s; {@link WaterFill}); the weight
         * cap is M. Unknown M (≤ 0): guarantees as configured.
         */
        public static Share maxMin(double capacity, double guaranteeCapacity, double level) {
            double c = capacityOrZero(capacity);
            double base = capacityOrZero(guaranteeCapacity);
            if (base <= 0) return new Share(c, 1);
            return new Share(c, Math.min(1, Math.max(level, Double.MIN_NORMAL)), base);
        }

        private static double capacityOrZero(double v) {
            return v > 0 && Double.isFinite(v) ? Math.min(v, Limits.MAX_RATE) : 0;
        }
    }

    /** The share of {@code pool} now. */
    Share of(String pool);

    /**
     * Counts a decision's demand: {@code tenant} asked for {@code costNano} nanotokens in
     * {@code pool}, admitted or refused. Called once per decision by the limiter (not for a cost
     * no bucket can ever hold: a 422 is about the job), so O(1) and in memory; a share that does
     * not measure demand ignores it.
     */
    default void asked(String pool, String tenant, long costNano) {}

    /**
     * Whether {@code tenant} asked for more than its guarantee in {@code pool} over the last
     * refresh's window (its measured demand, admitted and refused, above
     * {@link Share#guarantee}): a flooding tenant is, a tenant within its share is not. Read per
     * request, so O(1) from memory; a share that does not measure demand says false.
     */
    default boolean overShare(String pool, String tenant) { return false; }

    /** A fixed capacity for every pool (a pinned {@code admission.farm-capacity}; 0 = none), guarantees unscaled. */
    static FarmShare fixed(double capacity) {
        Share s = capacity > 0 ? new Share(Math.min(capacity, Limits.MAX_RATE), 1) : Share.NONE;
        return pool -> s;
    }
}
