package com.fairpix.worker.schedule;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * First come, first served: the baseline a plain Kafka consumer gives, kept for comparison in
 * {@code scripts/bench-fairness}. A flooding tenant's backlog delays everyone behind it.
 */
public final class FifoScheduler<T> implements JobScheduler<T> {
    private final Deque<Item<T>> queue = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition nonEmpty = lock.newCondition();

    @Override
    public void add(Item<T> item) {
        lock.lock();
        try {
            queue.addLast(item);
            nonEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Item<T> poll() {
        lock.lock();
        try {
            return queue.pollFirst();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Item<T> take(long timeout, TimeUnit unit, Slot slot) throws InterruptedException {
        if (slot == Slot.RESERVED) {
            // FIFO knows no tenants to reserve a slot for (the worker starts no reserved thread for it).
            unit.sleep(timeout);
            return null;
        }
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (queue.isEmpty()) {
                if (nanos <= 0) return null;
                nanos = nonEmpty.awaitNanos(nanos);
            }
            return queue.pollFirst();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void finished(Item<T> item, double costCorrection) {
        // FIFO keeps no per-tenant account.
    }

    @Override
    public List<T> drainIf(Predicate<T> filter) {
        lock.lock();
        try {
            List<T> out = new ArrayList<>();
            for (Iterator<Item<T>> it = queue.iterator(); it.hasNext(); ) {
                Item<T> item = it.next();
                if (filter.test(item.payload())) {
                    out.add(item.payload());
                    it.remove();
                }
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
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Set<String> backlogged() {
        lock.lock();
        try {
            Set<String> out = new HashSet<>();
            for (Item<T> i : queue) out.add(i.tenant());
            return out;
        } finally {
            lock.unlock();
        }
    }
}
