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
 * Weighted fair dispatch across tenants by deficit round robin (M. Shreedhar and G. Varghese,
 * "Efficient Fair Queueing Using Deficit Round Robin", SIGCOMM 1995), in cost units rather than
 * bytes: each backlogged tenant gets {@code quantum × weight} cost units of credit per round and
 * dispatches its jobs while their cost fits its credit. A tenant with a flood of queued jobs thus
 * gets its share per round, never the whole worker, and a newly active tenant is served within one
 * round (Q1).
 *
 * <p>Two additions to plain DRR: a tenant at its running cap is passed over (without credit) until
 * one of its jobs finishes, and {@link #finished} charges the difference between a job's measured
 * and estimated cost to the tenant's credit, so estimates that are systematically low for one
 * tenant do not buy it extra service.
 *
 * @param <T> the job payload
 */
public final class FairScheduler<T> implements JobScheduler<T> {

    private static final class TenantQueue<T> {
        final String tenant;
        final Deque<Item<T>> items = new ArrayDeque<>();
        double deficit;
        boolean creditedThisTurn;

        TenantQueue(String tenant) {
            this.tenant = tenant;
        }
    }

    private final double quantum;
    private final ToDoubleFunction<String> weights;
    private final ToIntFunction<String> runningCaps;
    private final Map<String, TenantQueue<T>> queues = new HashMap<>();
    private final Map<String, Integer> running = new HashMap<>();
    private final Deque<TenantQueue<T>> active = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private int size;

    /** Without running caps. */
    public FairScheduler(double quantum, ToDoubleFunction<String> weights) {
        this(quantum, weights, tenant -> Integer.MAX_VALUE);
    }

    /**
     * @param quantum     credit per round per unit of weight, cost units (> 0)
     * @param weights     tenant id → weight (> 0); read at each turn, so weight changes apply at once
     * @param runningCaps tenant id → jobs of the tenant that may run at once on this worker
     */
    public FairScheduler(double quantum, ToDoubleFunction<String> weights, ToIntFunction<String> runningCaps) {
        if (!(quantum > 0)) throw new IllegalArgumentException("quantum must be > 0");
        this.quantum = quantum;
        this.weights = weights;
        this.runningCaps = runningCaps;
    }

    @Override
    public void add(Item<T> item) {
        lock.lock();
        try {
            TenantQueue<T> q = queues.computeIfAbsent(item.tenant(), TenantQueue::new);
            if (q.items.isEmpty()) active.addLast(q);
            q.items.addLast(item);
            size++;
            changed.signal();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Item<T> poll() {
        lock.lock();
        try {
            return next();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Item<T> take(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (true) {
                Item<T> item = next();
                if (item != null) return item;
                if (nanos <= 0) return null;
                nanos = changed.awaitNanos(nanos);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void finished(String tenant, double costCorrection) {
        lock.lock();
        try {
            running.computeIfPresent(tenant, (t, n) -> n <= 1 ? null : n - 1);
            TenantQueue<T> q = queues.get(tenant);
            if (q != null) q.deficit -= costCorrection;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private Item<T> next() {
        int passedOver = 0;
        while (size > 0 && passedOver < active.size()) {
            TenantQueue<T> q = active.peekFirst();
            if (running.getOrDefault(q.tenant, 0) >= Math.max(1, runningCaps.applyAsInt(q.tenant))) {
                // At its cap: skip this turn without credit, so it cannot hoard credit while blocked.
                q.creditedThisTurn = false;
                active.addLast(active.pollFirst());
                passedOver++;
                continue;
            }
            passedOver = 0;
            if (!q.creditedThisTurn) {
                q.deficit += quantum * Math.max(1e-6, weights.applyAsDouble(q.tenant));
                q.creditedThisTurn = true;
            }
            Item<T> head = q.items.peekFirst();
            if (head.cost() <= q.deficit) {
                q.items.pollFirst();
                q.deficit -= head.cost();
                size--;
                running.merge(q.tenant, 1, Integer::sum);
                if (q.items.isEmpty()) {
                    // An idle tenant keeps no credit: DRR resets the deficit of an emptied queue.
                    q.deficit = 0;
                    q.creditedThisTurn = false;
                    active.pollFirst();
                    queues.remove(q.tenant);
                }
                return head;
            }
            // Turn over: the head does not fit the remaining credit; move to the back with it.
            q.creditedThisTurn = false;
            active.addLast(active.pollFirst());
        }
        return null;
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
