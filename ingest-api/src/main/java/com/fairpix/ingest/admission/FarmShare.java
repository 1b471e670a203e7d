package com.fairpix.ingest.admission;

/**
 * What admission may hand out in a pool right now: the farm capacity C it lends from and the
 * factor by which tenants' guarantees are scaled so that they add up to at most C. Read on every
 * decision, so an implementation answers from memory (the ingest's {@code FarmCapacity} refreshes
 * it in the background).
 */
@FunctionalInterface
public interface FarmShare {

    /**
     * @param capacity       C, tokens/s: the refill rate of the pool's borrowing bucket and the most
     *                       any ceiling reaches; 0 = unknown or off (no borrowing)
     * @param guaranteeScale factor applied to every tenant's guaranteed rate, in (0, 1]:
     *                       {@code min(1, M ÷ Σ guarantees)} with M what the pool does (its
     *                       measured capacity, or the pinned C), so guarantees are shares of what exists
     *                       (Kubernetes APF's nominal shares → seats, KEP-1040)
     */
    record Share(double capacity, double guaranteeScale) {
        /** No capacity known: guarantees as configured, no borrowing. */
        public static final Share NONE = new Share(0, 1);

        public Share {
            if (!(capacity >= 0) || Double.isInfinite(capacity)) throw new IllegalArgumentException("capacity must be finite and >= 0: " + capacity);
            if (!(guaranteeScale > 0 && guaranteeScale <= 1)) throw new IllegalArgumentException("guaranteeScale must be in (0, 1]: " + guaranteeScale);
        }

        /** {@link #of(double, double, double)} with guarantees scaled to the capacity itself (a pinned C). */
        public static Share of(double capacity, double guarantees) {
            return of(capacity, capacity, guarantees);
        }

        /**
         * The share for capacity {@code capacity} (what borrowing may reach) and guarantees summing to
         * {@code guarantees}, scaled to {@code guaranteeCapacity} (what the pool does, without the
         * headroom): scale {@code min(1, guaranteeCapacity ÷ guarantees)}, 1 when either is unknown
         * (≤ 0). All in tokens/s.
         */
        public static Share of(double capacity, double guaranteeCapacity, double guarantees) {
            double c = capacity > 0 && Double.isFinite(capacity) ? Math.min(capacity, Limits.MAX_RATE) : 0;
            double base = guaranteeCapacity > 0 && Double.isFinite(guaranteeCapacity) ? Math.min(guaranteeCapacity, Limits.MAX_RATE) : 0;
            double scale = base > 0 && guarantees > base ? base / guarantees : 1;
            // A scale so small that a guarantee rounds below 0.001 token/s is still positive.
            return new Share(c, Math.max(scale, Double.MIN_NORMAL));
        }
    }

    /** The share of {@code pool} now. */
    Share of(String pool);

    /** A fixed capacity for every pool (a pinned {@code admission.farm-capacity}; 0 = none), guarantees unscaled. */
    static FarmShare fixed(double capacity) {
        Share s = capacity > 0 ? new Share(Math.min(capacity, Limits.MAX_RATE), 1) : Share.NONE;
        return pool -> s;
    }
}
