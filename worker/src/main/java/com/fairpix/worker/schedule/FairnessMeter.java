package com.fairpix.worker.schedule;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * Measures how fairly a worker served its backlogged tenants over a window: Jain's fairness index
 * (R. Jain, D. Chiu and W. Hawe, "A Quantitative Measure of Fairness and Discrimination for
 * Resource Allocation in Shared Computer Systems", DEC-TR-301, 1984) over weight-normalised service,
 * {@code J = (Σ x)² / (n · Σ x²)} with {@code x = service / weight}; 1 is perfectly fair, 1/n is one
 * tenant taking everything. Only tenants backlogged for most of the window count: an idle tenant
 * rightly receives little. Thread-safe; the caller drives the window with {@link #sample} and
 * {@link #closeWindow}.
 */
public final class FairnessMeter {
    /** Share of samples in which a tenant must have been backlogged to count. */
    static final double BACKLOGGED_SHARE = 0.9;

    private final ToDoubleFunction<String> weights;
    private final Map<String, Double> service = new HashMap<>();
    private final Map<String, Integer> backloggedSamples = new HashMap<>();
    private int samples;
    private volatile double lastIndex = Double.NaN;

    public FairnessMeter(ToDoubleFunction<String> weights) {
        this.weights = weights;
    }

    /** Counts {@code cost} units of service received by {@code tenant}. */
    public synchronized void served(String tenant, double cost) {
        service.merge(tenant, cost, Double::sum);
    }

    /** Notes which tenants have queued jobs now (call at a steady rate, e.g. every second). */
    public synchronized void sample(Set<String> backlogged) {
        samples++;
        for (String t : backlogged) backloggedSamples.merge(t, 1, Integer::sum);
    }

    /** Ends the window: computes the index (NaN with fewer than two backlogged tenants) and starts a new one. */
    public synchronized double closeWindow() {
        Map<String, Double> normalised = new HashMap<>();
        for (var e : backloggedSamples.entrySet()) {
            if (samples > 0 && e.getValue() >= BACKLOGGED_SHARE * samples) {
                double w = weights.applyAsDouble(e.getKey());
                normalised.put(e.getKey(), service.getOrDefault(e.getKey(), 0.0) / (w > 0 ? w : 1.0));
            }
        }
        lastIndex = normalised.size() < 2 ? Double.NaN : jain(normalised.values());
        service.clear();
        backloggedSamples.clear();
        samples = 0;
        return lastIndex;
    }

    /** The index of the last closed window; NaN before one closed with two backlogged tenants. */
    public double lastIndex() {
        return lastIndex;
    }

    /** Jain's index of {@code xs}; 1 for all-equal, NaN for none or all zero. */
    public static double jain(Collection<Double> xs) {
        double sum = 0, squares = 0;
        for (double x : xs) {
            sum += x;
            squares += x * x;
        }
        return squares == 0 ? Double.NaN : sum * sum / (xs.size() * squares);
    }
}
