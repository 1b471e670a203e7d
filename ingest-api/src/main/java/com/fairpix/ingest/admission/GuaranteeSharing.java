package com.fairpix.ingest.admission;

import com.fairpix.core.tenant.Tenant;
import com.fairpix.core.tenant.TenantState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Shares each pool's capacity among its tenants by their measured demand (weighted max-min,
 * {@link WaterFill}), or proportionally to their rates ({@link FarmShare.Sharing}); see
 * docs/admission.md "Guarantees as shares".
 *
 * <ul>
 *   <li><b>Demand</b> is what a tenant asked for, admitted and refused: every decision adds its cost
 *       to an in-memory counter ({@link #asked}, O(1): a map lookup and a {@link LongAdder}).</li>
 *   <li>Each refresh ({@link #share}) drains the node's counters into a {@link DemandStore} shared by
 *       every ingest node (Redis: one script on the pool's slot, per-second buckets) and reads back
 *       every node's counts over the last {@link #WINDOW_SECONDS} seconds, which spans two refreshes
 *       of each node: a tenant that wakes up counts in full by the second refresh after its first
 *       request (half at the first), one that goes quiet stops counting by the second.</li>
 *   <li>The level λ of the water-filling is one number per pool; a decision reads it and the
 *       tenant's rate ({@link FarmShare.Share#guarantee}), O(1) whatever the number of tenants. A
 *       tenant not yet counted gets λ × min(rate, M) at the current level.</li>
 * </ul>
 *
 * <p>Thread-safe: {@link #asked} from any decision thread, {@link #share} from the refresh thread.
 */
public final class GuaranteeSharing {
    /** Seconds of demand a refresh reads: two refresh periods (2 s each) of every node. */
    public static final int WINDOW_SECONDS = 4;
    /** Tenants listed per pool ({@link PoolShares#top}), the largest demand first. */
    public static final int TOP = 10;

    /** Where every ingest node's counts meet. */
    public interface DemandStore {
        /**
         * Adds this node's counts, asked since its last call, to the bucket of {@code epochSecond}
         * and returns every node's counts per tenant over the seconds
         * {@code (epochSecond − windowSeconds, epochSecond]}.
         *
         * @param asked tenant → nanotokens asked (admitted or refused)
         * @return tenant → nanotokens asked in the window, all nodes
         * @throws RuntimeException when the store is unreachable (the refresh keeps its last view)
         */
        Map<String, Long> addAndSum(String pool, long epochSecond, Map<String, Long> asked, int windowSeconds);

        /** One node's store, in memory (tests, benchmarks). */
        static DemandStore inMemory() {
            Map<String, TreeMap<Long, Map<String, Long>>> pools = new HashMap<>();
            return (pool, second, asked, window) -> {
                synchronized (pools) {
                    TreeMap<Long, Map<String, Long>> buckets = pools.computeIfAbsent(pool, p -> new TreeMap<>());
                    Map<String, Long> bucket = buckets.computeIfAbsent(second, s -> new HashMap<>());
                    asked.forEach((t, n) -> bucket.merge(t, n, Long::sum));
                    buckets.headMap(second - window, true).clear();
                    Map<String, Long> sum = new HashMap<>();
                    for (Map<String, Long> b : buckets.values()) b.forEach((t, n) -> sum.merge(t, n, Long::sum));
                    return sum;
                }
            };
        }
    }

    /**
     * One tenant's figures in a pool.
     *
     * @param tenant    tenant id
     * @param rate      configured rate, tokens/s (its weight, capped at M)
     * @param demand    tokens/s asked over the window, all nodes
     * @param guarantee guaranteed rate it is given now, tokens/s
     */
    public record TenantShare(String tenant, double rate, double demand, double guarantee) {}

    /**
     * A pool's sharing as of one refresh.
     *
     * @param sharing      the rule applied
     * @param share        what decisions read
     * @param fill         the water-filling over the tenants with demand (computed in either mode, for comparison)
     * @param tenants      tenants with demand in the window (active ones only)
     * @param demand       their total demand, tokens/s (each counted up to its rate)
     * @param top          the {@link #TOP} largest demands, largest first
     * @param overShare    the tenants asking more than their guarantee now (demand &gt; guarantee): the
     *                     ones borrowing or refused, a flood among them; at most {@code tenants} ids
     */
    public record PoolShares(FarmShare.Sharing sharing, FarmShare.Share share, WaterFill.Result fill, int tenants, double demand, List<TenantShare> top,
                             Set<String> overShare) {
        /** Before any refresh (max-min). */
        public static final PoolShares NONE = none(FarmShare.Sharing.MAX_MIN);

        public PoolShares {
            overShare = Set.copyOf(overShare);
        }

        /** Before any refresh, with {@code sharing}: guarantees as configured, no demand known. */
        public static PoolShares none(FarmShare.Sharing sharing) {
            return new PoolShares(sharing, FarmShare.Share.NONE, new WaterFill.Result(1, 0, 0, 0, 0), 0, 0, List.of(), Set.of());
        }
    }

    private final FarmShare.Sharing sharing;
    private final DemandStore store;
    private final Function<String, Optional<Tenant>> tenants;
    private final Map<String, Map<String, LongAdder>> counters = new ConcurrentHashMap<>();

    /**
     * @param sharing the rule ({@code admission.guarantee-sharing})
     * @param store   where every node's demand meets
     * @param tenants the tenant of an id (the ingest's cached directory); only ACTIVE tenants count
     */
    public GuaranteeSharing(FarmShare.Sharing sharing, DemandStore store, Function<String, Optional<Tenant>> tenants) {
        this.sharing = sharing;
        this.store = store;
        this.tenants = tenants;
    }

    public FarmShare.Sharing sharing() { return sharing; }

    /** Counts {@code costNano} nanotokens asked by {@code tenant} in {@code pool} on this node. O(1), no lock. */
    public void asked(String pool, String tenant, long costNano) {
        Map<String, LongAdder> m = counters.get(pool);
        if (m == null) m = counters.computeIfAbsent(pool, p -> new ConcurrentHashMap<>());
        LongAdder a = m.get(tenant);
        if (a == null) a = m.computeIfAbsent(tenant, t -> new LongAdder());
        a.add(costNano);
    }

    /**
     * This node's counts since the last drain, nanotokens per tenant; a tenant that asked nothing
     * since the last drain leaves the map (memory bounded by the tenants asking). A count racing
     * with the removal of an idle tenant's entry may be lost (one decision's cost, only for a
     * tenant idle for a whole refresh period).
     */
    Map<String, Long> drain(String pool) {
        Map<String, LongAdder> m = counters.get(pool);
        if (m == null) return Map.of();
        Map<String, Long> out = new HashMap<>();
        for (var e : m.entrySet()) {
            long v = e.getValue().sumThenReset();
            if (v > 0) out.put(e.getKey(), v);
            else m.remove(e.getKey(), e.getValue());
        }
        return out;
    }

    /**
     * One refresh of {@code pool}: flushes this node's demand, reads every node's, and shares
     * {@code guaranteeCapacity} (M) by the configured rule.
     *
     * @param epochSecond       now, seconds since the epoch (the bucket this node's counts go to)
     * @param capacity          C, tokens/s (0: unknown)
     * @param guaranteeCapacity M, tokens/s (0: unknown; guarantees as configured)
     * @param proportional      the proportional share (C, and the rates of the pool's active tenants scaled to M)
     * @throws RuntimeException when the demand store fails (the caller keeps its last view)
     */
    public PoolShares share(String pool, long epochSecond, double capacity, double guaranteeCapacity, FarmShare.Share proportional) {
        Map<String, Long> window = store.addAndSum(pool, epochSecond, drain(pool), WINDOW_SECONDS);
        List<String> ids = new ArrayList<>(window.size());
        double[] rates = new double[window.size()];
        double[] demands = new double[window.size()];
        int n = 0;
        for (var e : window.entrySet()) {
            Optional<Tenant> t = tenants.apply(e.getKey());
            if (t.isEmpty() || t.get().state() != TenantState.ACTIVE || !(t.get().rate() > 0)) continue;
            ids.add(e.getKey());
            rates[n] = Math.min(t.get().rate(), Limits.MAX_RATE);
            demands[n] = e.getValue() / (double) Limits.NANO / WINDOW_SECONDS;
            n++;
        }
        if (n < rates.length) {
            rates = java.util.Arrays.copyOf(rates, n);
            demands = java.util.Arrays.copyOf(demands, n);
        }
        WaterFill.Result fill = WaterFill.fill(guaranteeCapacity, rates, demands);
        FarmShare.Share share = sharing == FarmShare.Sharing.MAX_MIN ? FarmShare.Share.maxMin(capacity, guaranteeCapacity, fill.level()) : proportional;
        Set<String> over = new HashSet<>();
        for (int i = 0; i < n; i++) {
            if (demands[i] > share.guarantee(rates[i])) over.add(ids.get(i));
        }
        return new PoolShares(sharing, share, fill, n, fill.totalDemand(), top(ids, rates, demands, share), over);
    }

    private static List<TenantShare> top(List<String> ids, double[] rates, double[] demands, FarmShare.Share share) {
        // A bounded heap of the TOP largest demands: O(n log TOP).
        java.util.PriorityQueue<Integer> heap = new java.util.PriorityQueue<>(TOP + 1, Comparator.comparingDouble(i -> demands[i]));
        for (int i = 0; i < ids.size(); i++) {
            heap.add(i);
            if (heap.size() > TOP) heap.poll();
        }
        List<TenantShare> out = new ArrayList<>(heap.size());
        while (!heap.isEmpty()) {
            int i = heap.poll();
            out.add(new TenantShare(ids.get(i), rates[i], demands[i], share.guarantee(rates[i])));
        }
        java.util.Collections.reverse(out);
        return out;
    }
}
