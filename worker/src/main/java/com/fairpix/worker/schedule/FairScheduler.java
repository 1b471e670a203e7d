package com.fairpix.worker.schedule;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Weighted fair dispatch across tenants by deficit round robin (M. Shreedhar and G. Varghese,
 * "Efficient Fair Queueing Using Deficit Round Robin", SIGCOMM 1995), in cost units rather than
 * packets: each backlogged tenant gets {@code quantum × weight} cost units of credit per round and
 * dispatches its jobs while their cost fits its credit. A tenant with a flood of queued jobs thus
 * gets its share per round, never the whole worker, and a newly active tenant is served within one
 * round (Q1).
 *
 * <p>Thread-safe: the poll loop adds, processing threads take.
 *
 * @param <T> the job payload
 */
public final class FairScheduler<T> {
    /** A queued job: its tenant, its estimated cost in cost units, the payload. */
    public record Item<T>(String tenant, double cost, T payload) {}

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
    private final Map<String, TenantQueue<T>> queues = new HashMap<>();
    private final Deque<TenantQueue<T>> active = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition nonEmpty = lock.newCondition();
    private int size;

    /**
     * @param quantum credit per round per unit of weight, cost units (> 0)
     * @param weights tenant id → weight (> 0); read at each round, so weight changes apply at once
     */
    public FairScheduler(double quantum, ToDoubleFunction<String> weights) {
        if (!(quantum > 0)) throw new IllegalArgumentException("quantum must be > 0");
        this.quantum = quantum;
        this.weights = weights;
    }

    public void add(Item<T> item) {
        lock.lock();
        try {
            TenantQueue<T> q = queues.computeIfAbsent(item.tenant(), TenantQueue::new);
            if (q.items.isEmpty()) active.addLast(q);
            q.items.addLast(item);
            size++;
            nonEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    /** The next job by DRR, or null when none is queued. */
    public Item<T> poll() {
        lock.lock();
        try {
            return next();
        } finally {
            lock.unlock();
        }
    }

    /** Waits up to {@code timeout} for a job; null when none came. */
    public Item<T> take(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (size == 0) {
                if (nanos <= 0) return null;
                nanos = nonEmpty.awaitNanos(nanos);
            }
            return next();
        } finally {
            lock.unlock();
        }
    }

    private Item<T> next() {
        if (size == 0) return null;
        while (true) {
            TenantQueue<T> q = active.peekFirst();
            if (!q.creditedThisTurn) {
                q.deficit += quantum * Math.max(1e-6, weights.applyAsDouble(q.tenant));
                q.creditedThisTurn = true;
            }
            Item<T> head = q.items.peekFirst();
            if (head.cost() <= q.deficit) {
                q.items.pollFirst();
                q.deficit -= head.cost();
                size--;
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
    }

    /** Drops queued jobs matching {@code filter} (e.g. those of revoked partitions); returns how many. */
    public int removeIf(Predicate<T> filter) {
        lock.lock();
        try {
            int removed = 0;
            for (Iterator<TenantQueue<T>> it = active.iterator(); it.hasNext(); ) {
                TenantQueue<T> q = it.next();
                int before = q.items.size();
                q.items.removeIf(i -> filter.test(i.payload()));
                removed += before - q.items.size();
                if (q.items.isEmpty()) {
                    it.remove();
                    queues.remove(q.tenant);
                }
            }
            size -= removed;
            return removed;
        } finally {
            lock.unlock();
        }
    }

    /** Removes and returns the queued payloads matching {@code filter}, in queue order per tenant. */
    public java.util.List<T> drainIf(Predicate<T> filter) {
        lock.lock();
        try {
            java.util.List<T> out = new java.util.ArrayList<>();
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

    public int size() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }
}
