package com.fairpix.worker.schedule;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;

/**
 * Weighted fair dispatch across tenants by start-time fair queueing (P. Goyal, H. M. Vin and
 * H. Cheng, "Start-time Fair Queuing: A Scheduling Algorithm for Integrated Services Packet
 * Switching Networks", SIGCOMM 1996), in cost units (tokens: 5 ms of one core each, {@link com.fairpix.core.job.JobCost}) rather than bits.
 *
 * <p>Each job gets a start tag {@code S = max(v, F_prev)} and a finish tag
 * {@code F = S + cost / weight}, where {@code F_prev} is the finish tag of the tenant's previous job
 * and {@code v}, the virtual time, is the start tag of the job most recently dispatched. The job with
 * the smallest start tag goes next. Backlogged tenants therefore receive service in proportion to
 * their weights, and a tenant that was idle starts at the current virtual time: its first job
 * is dispatched next, whatever backlog another tenant has — unlike deficit round robin, which
 * lets the current tenant spend its whole quantum first.
 *
 * <p>Three additions: a tenant at its running cap is passed over until one of its jobs finishes;
 * {@link #finished} moves the tenant's finish tag by the difference between the job's
 * measured and estimated cost, so estimates that are systematically low for one tenant do not buy
 * it extra service; and <b>reserved slots</b>. SFQ orders dispatches but cannot preempt: when a
 * flood's jobs occupy every processing thread, a quiet tenant's job, first in line, still waits
 * for one of them to end. So the worker runs {@code sharedSlots} threads that take jobs in SFQ
 * order and {@code reservedSlots} more that, while every shared slot is busy, take only the job
 * of a tenant with no job running whose start tag is the smallest of all backlogged tenants': the
 * job SFQ would dispatch next anyway, started without waiting for a thread. A tenant that has had
 * more than its share is never first in line, so it cannot ride a reserved slot past its weight.
 * With {@code sharedSlots} = cores a lone tenant still keeps every core busy, and a newcomer starts
 * at once on a reserved thread. The shared threads run at background CPU priority and the reserved
 * ones at normal priority, so the kernel gives the newcomer's job most of a core at once: the
 * preemption SFQ lacks (see docs/scheduler.md). Thread-safe: the poll loop adds, processing
 * threads take.
 *
 * @param <T> the job payload
 */
public final class FairScheduler<T> implements JobScheduler<T> {

    private static final class TenantQueue<T> {
        final String tenant;
        final Deque<Item<T>> items = new ArrayDeque<>();
        double headStart;

        TenantQueue(String tenant) {
            this.tenant = tenant;
        }
    }

    private final ToDoubleFunction<String> weights;
    private final ToIntFunction<String> runningCaps;
    /** Tenants with queued jobs, in the order they became backlogged (ties go to the earlier one). */
    private final List<TenantQueue<T>> active = new ArrayList<>();
    private final Map<String, TenantQueue<T>> queues = new HashMap<>();
    /** Finish tag of each tenant's last dispatched job, kept only while it is ahead of the virtual time. */
    private final Map<String, Double> lastFinish = new HashMap<>();
    private final Map<String, Integer> running = new HashMap<>();
    /** Running jobs whose slot was freed early ({@link #releaseSlot}), by identity. */
    private final java.util.Set<Item<T>> slotsReleased = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    private final int sharedSlots;
    private final int reservedSlots;
    private int runningShared;
    private int runningReserved;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition sharedFree = lock.newCondition();
    private final Condition reservedFree = lock.newCondition();
    private double virtualTime;
    private int size;

    /** Without running caps or reserved slots. */
    public FairScheduler(ToDoubleFunction<String> weights) {
        this(weights, tenant -> Integer.MAX_VALUE);
    }

    /** Without reserved slots. */
    public FairScheduler(ToDoubleFunction<String> weights, ToIntFunction<String> runningCaps) {
        this(weights, runningCaps, Integer.MAX_VALUE, 0);
    }

    /**
     * @param weights       tenant id → weight (> 0); read at each dispatch, so weight changes apply at once
     * @param runningCaps   tenant id → jobs of the tenant that may run at once on this worker
     * @param sharedSlots   jobs of any tenants that may run at once on shared slots (>= 1)
     * @param reservedSlots further jobs that may run at once while every shared slot is busy, each only
     *                      for a tenant with none running whose start tag is the smallest of all
     *                      backlogged tenants' (>= 0)
     * @throws IllegalArgumentException if {@code sharedSlots < 1} or {@code reservedSlots < 0}
     */
    public FairScheduler(ToDoubleFunction<String> weights, ToIntFunction<String> runningCaps, int sharedSlots, int reservedSlots) {
        if (sharedSlots < 1 || reservedSlots < 0) throw new IllegalArgumentException("sharedSlots must be >= 1 and reservedSlots >= 0, got " + sharedSlots + ", " + reservedSlots);
        this.weights = weights;
        this.runningCaps = runningCaps;
        this.sharedSlots = sharedSlots;
        this.reservedSlots = reservedSlots;
    }

    @Override
    public void add(Item<T> item) {
        if (!(item.cost() >= 0) || Double.isInfinite(item.cost())) throw new IllegalArgumentException("cost must be finite and >= 0, got " + item.cost());
        lock.lock();
        try {
            TenantQueue<T> q = queues.get(item.tenant());
            if (q == null) {
                q = new TenantQueue<>(item.tenant());
                q.headStart = Math.max(virtualTime, lastFinish.getOrDefault(item.tenant(), 0.0));
                queues.put(item.tenant(), q);
                active.add(q);
            }
            q.items.addLast(item.on(Slot.SHARED));
            size++;
            // Wake one thread that may take it: a shared one if a shared slot is free, else a reserved one.
            (runningShared < sharedSlots ? sharedFree : reservedFree).signal();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Item<T> poll() {
        lock.lock();
        try {
            Item<T> item = next(Slot.SHARED);
            return item != null ? item : next(Slot.RESERVED);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Item<T> take(long timeout, TimeUnit unit, Slot slot) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (true) {
                Item<T> item = next(slot);
                if (item != null) return item;
                if (nanos <= 0) return null;
                nanos = (slot == Slot.SHARED ? sharedFree : reservedFree).awaitNanos(nanos);
            }
        } finally {
            lock.unlock();
        }
    }

    private Item<T> next(Slot slot) {
        boolean reservedOnly = slot == Slot.RESERVED;
        if (reservedOnly ? runningShared < sharedSlots || runningReserved >= reservedSlots : runningShared >= sharedSlots) return null;
        // Every shared slot busy: a reserved slot only lets the job SFQ would pick next start without
        // waiting for a thread, and only for a tenant without a running job.
        double firstInLine = Double.POSITIVE_INFINITY;
        if (reservedOnly) for (TenantQueue<T> q : active) firstInLine = Math.min(firstInLine, q.headStart);
        TenantQueue<T> best = null;
        for (TenantQueue<T> q : active) {
            int runningJobs = running.getOrDefault(q.tenant, 0);
            if (runningJobs >= Math.max(1, runningCaps.applyAsInt(q.tenant))) continue;
            if (reservedOnly && (runningJobs > 0 || q.headStart > firstInLine)) continue;
            if (best == null || q.headStart < best.headStart) best = q;
        }
        if (best == null) return null;
        Item<T> item = best.items.pollFirst();
        size--;
        running.merge(best.tenant, 1, Integer::sum);
        if (reservedOnly) runningReserved++;
        else runningShared++;
        // Filling the last shared slot (or moving a tenant's tag) can make a queued job the reserved
        // slot's: tell a reserved thread, or it sleeps until its own timeout.
        if (runningShared >= sharedSlots && size > 0 && runningReserved < reservedSlots) reservedFree.signal();
        virtualTime = Math.max(virtualTime, best.headStart);
        double finish = best.headStart + item.cost() / weight(best.tenant);
        lastFinish.put(best.tenant, finish);
        if (best.items.isEmpty()) {
            active.remove(best);
            queues.remove(best.tenant);
        } else {
            best.headStart = finish;
        }
        pruneFinishTags();
        return item.on(slot);
    }

    private double weight(String tenant) {
        double w = weights.applyAsDouble(tenant);
        return w > 0 && !Double.isInfinite(w) ? w : 1.0;
    }

    /** Drops finish tags at or behind the virtual time: such a tenant starts at v anyway. */
    private void pruneFinishTags() {
        if (lastFinish.size() > 2 * (queues.size() + running.size()) + 64) {
            lastFinish.entrySet().removeIf(e -> e.getValue() <= virtualTime && !queues.containsKey(e.getKey()));
        }
    }

    @Override
    public void releaseSlot(Item<T> item) {
        lock.lock();
        try {
            if (!running.containsKey(item.tenant()) || !slotsReleased.add(item)) return;
            freeSlot(item);
            sharedFree.signalAll();
            reservedFree.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void freeSlot(Item<T> item) {
        if (item.slot() == Slot.RESERVED) runningReserved = Math.max(0, runningReserved - 1);
        else runningShared = Math.max(0, runningShared - 1);
    }

    @Override
    public void finished(Item<T> item, double costCorrection) {
        String tenant = item.tenant();
        lock.lock();
        try {
            if (running.containsKey(tenant) && !slotsReleased.remove(item)) freeSlot(item);
            running.computeIfPresent(tenant, (t, n) -> n <= 1 ? null : n - 1);
            if (costCorrection != 0 && Double.isFinite(costCorrection)) {
                double shift = costCorrection / weight(tenant);
                lastFinish.computeIfPresent(tenant, (t, f) -> f + shift);
                TenantQueue<T> q = queues.get(tenant);
                if (q != null) q.headStart = Math.max(virtualTime, q.headStart + shift);
            }
            sharedFree.signalAll();
            reservedFree.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<T> drainIf(Predicate<T> filter) {
        lock.lock();
        try {
            List<T> out = new ArrayList<>();
            for (Iterator<TenantQueue<T>> it = active.iterator(); it.hasNext(); ) {
                TenantQueue<T> q = it.next();
                for (Iterator<Item<T>> items = q.items.iterator(); items.hasNext(); ) {
                    Item<T> item = items.next();
                    if (filter.test(item.payload())) {
                        out.add(item.payload());
                        items.remove();
                    }
                }
                if (q.items.isEmpty()) {
                    it.remove();
                    queues.remove(q.tenant);
                }
            }
            size -= out.size();
            if (!out.isEmpty()) {
                // Another tenant may be first in line now.
                sharedFree.signalAll();
                reservedFree.signalAll();
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int size() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Set<String> backlogged() {
        lock.lock();
        try {
            return Set.copyOf(queues.keySet());
        } finally {
            lock.unlock();
        }
    }
}
