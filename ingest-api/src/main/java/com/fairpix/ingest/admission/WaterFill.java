package com.fairpix.ingest.admission;

/**
 * Weighted max-min fair sharing of one pool's capacity by water-filling (Bertsekas &amp; Gallager,
 * <i>Data Networks</i>, 2nd ed., §6.5.2): tenants are taken in increasing order of demand ÷ weight;
 * a tenant whose demand fits under the current level × its weight is <b>satisfied</b> (it gets its
 * whole demand, and what it leaves goes back into the pool), and the level λ of the rest is set so
 * that {@code Σ satisfied demand + λ × Σ unsatisfied weight = M}.
 *
 * <p>Here a tenant's weight is its configured rate capped at M (a rate above all the pool does
 * claims the whole pool, no more), and its demand counts up to its configured rate (a guarantee is
 * never above the rate). Every tenant's guarantee is then {@code λ × weight}
 * ({@link FarmShare.Share#guarantee}), which is ≥ the demand of a satisfied tenant: one number per
 * pool, so a decision reads it in O(1) whatever the number of tenants. No bottleneck
 * (Σ demand ≤ M): λ = 1, every tenant its configured rate.
 *
 * <p>Cost: one sort, O(n log n) for n tenants with demand; a few arrays of n.
 */
public final class WaterFill {
    private WaterFill() {}

    /**
     * The outcome of one water-filling.
     *
     * @param level            λ in (0, 1]: every tenant's guarantee is λ × min(rate, M); 1 = no bottleneck
     * @param satisfied        tenants whose (capped) demand fits under λ × their weight
     * @param satisfiedDemand  Σ (capped) demand of the satisfied tenants, tokens/s
     * @param unsatisfiedWeight Σ weight of the others, tokens/s
     * @param totalDemand      Σ (capped) demand of every tenant, tokens/s
     */
    public record Result(double level, int satisfied, double satisfiedDemand, double unsatisfiedWeight, double totalDemand) {}

    /**
     * Shares {@code capacity} among tenants configured at {@code rates} asking {@code demands}.
     *
     * @param capacity M, tokens/s; ≤ 0 or not finite = unknown (λ = 1)
     * @param rates    configured rates, tokens/s, each &gt; 0 (their weights, capped at M)
     * @param demands  measured demand of the same tenants, tokens/s, each ≥ 0 (counted up to the rate)
     * @throws IllegalArgumentException when the arrays differ in length, or a rate is not positive
     *                                  or a demand negative or NaN
     */
    public static Result fill(double capacity, double[] rates, double[] demands) {
        int n = rates.length;
        if (demands.length != n) throw new IllegalArgumentException("rates and demands differ in length: " + n + " vs " + demands.length);
        double total = 0;
        double[] d = new double[n];
        double[] w = new double[n];
        boolean known = capacity > 0 && Double.isFinite(capacity);
        for (int i = 0; i < n; i++) {
            if (!(rates[i] > 0)) throw new IllegalArgumentException("rate must be > 0: " + rates[i]);
            if (!(demands[i] >= 0)) throw new IllegalArgumentException("demand must be >= 0: " + demands[i]);
            w[i] = known ? Math.min(rates[i], capacity) : rates[i];
            d[i] = Math.min(demands[i], rates[i]);
            total += d[i];
        }
        if (!known || total <= capacity) return new Result(1, n, total, 0, total);
        // Order by demand ÷ weight (ratios are finite and >= 0, so their IEEE bits order as they do).
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) keys[i] = Double.doubleToLongBits(d[i] / w[i]);
        int[] order = new int[n];
        for (int i = 0; i < n; i++) order[i] = i;
        mergeSort(order, new int[n], keys, 0, n);
        double left = capacity;
        double weights = 0;
        for (double x : w) weights += x;
        int satisfied = 0;
        double satisfiedDemand = 0;
        for (int k = 0; k < n; k++) {
            int i = order[k];
            // Satisfied when its demand fits under the level the rest would get: d ≤ (left ÷ weights) × w.
            if (d[i] * weights <= left * w[i]) {
                left -= d[i];
                weights -= w[i];
                satisfied++;
                satisfiedDemand += d[i];
            } else {
                break;
            }
        }
        double level = weights > 0 ? left / weights : 1;
        return new Result(Math.min(1, Math.max(level, Double.MIN_NORMAL)), satisfied, satisfiedDemand, weights, total);
    }

    /** Sorts {@code a[from, to)} (indexes) by {@code keys[index]}, ascending, stable; no boxing. */
    private static void mergeSort(int[] a, int[] tmp, long[] keys, int from, int to) {
        if (to - from < 2) return;
        int mid = (from + to) >>> 1;
        mergeSort(a, tmp, keys, from, mid);
        mergeSort(a, tmp, keys, mid, to);
        int i = from, j = mid, k = from;
        while (i < mid && j < to) tmp[k++] = keys[a[i]] <= keys[a[j]] ? a[i++] : a[j++];
        while (i < mid) tmp[k++] = a[i++];
        while (j < to) tmp[k++] = a[j++];
        System.arraycopy(tmp, from, a, from, to - from);
    }
}
