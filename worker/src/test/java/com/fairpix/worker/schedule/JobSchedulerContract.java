package com.fairpix.worker.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.ThreadStates;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What every {@link JobScheduler} promises, run on each policy (the fair scheduler, FIFO), as the
 * worker builds it without caps or reserved slots: every job handed out once with what it was
 * added with, each tenant's jobs in order, removal, waiting takes, an empty scheduler. The order
 * across tenants is each policy's own (FairSchedulerTest, ReservedSlotsTest).
 */
@Timeout(30)
abstract class JobSchedulerContract {
    /** A scheduler with these tenant weights (a policy may ignore them), no running caps and no reserved slots. */
    protected abstract <T> JobScheduler<T> scheduler(ToDoubleFunction<String> weights);

    private <T> JobScheduler<T> scheduler() {
        return scheduler(t -> 1.0);
    }

    static <T> List<T> drain(JobScheduler<T> s) {
        List<T> out = new ArrayList<>();
        for (JobScheduler.Item<T> item; (item = s.poll()) != null; ) out.add(item.payload());
        return out;
    }

    @Test
    void anEmptySchedulerHandsOutNothing() throws InterruptedException {
        JobScheduler<String> s = scheduler();
        assertThat(s.poll()).isNull();
        assertThat(s.take(0, TimeUnit.MILLISECONDS)).isNull();
        assertThat(s.size()).isZero();
        assertThat(s.backlogged()).isEmpty();
        assertThat(s.drainIf(p -> true)).isEmpty();
    }

    @Test
    void everyJobIsHandedOutOnceAsItWasAddedOnASharedSlot() {
        JobScheduler<String> s = scheduler();
        s.add(new JobScheduler.Item<>("a", 2.5, "a0"));
        s.add(new JobScheduler.Item<>("b", 0.5, "b0"));
        assertThat(s.size()).isEqualTo(2);
        Map<String, JobScheduler.Item<String>> out = new HashMap<>();
        for (JobScheduler.Item<String> item; (item = s.poll()) != null; ) out.put(item.payload(), item);
        assertThat(out).containsOnlyKeys("a0", "b0");
        assertThat(out.get("a0")).isEqualTo(new JobScheduler.Item<>("a", 2.5, "a0", JobScheduler.Slot.SHARED));
        assertThat(out.get("b0")).isEqualTo(new JobScheduler.Item<>("b", 0.5, "b0", JobScheduler.Slot.SHARED));
        assertThat(s.size()).isZero();
    }

    @Test
    void eachTenantsJobsKeepTheirOrder() {
        JobScheduler<Integer> s = scheduler(t -> t.equals("a") ? 1.0 : 3.0);
        Random random = new Random(1);
        for (int i = 0; i < 200; i++) {
            s.add(new JobScheduler.Item<>("a", 1 + random.nextInt(15), i));
            s.add(new JobScheduler.Item<>("b", 1 + random.nextInt(15), i));
        }

        Map<String, Integer> last = new HashMap<>(Map.of("a", -1, "b", -1));
        for (JobScheduler.Item<Integer> item; (item = s.poll()) != null; ) {
            assertThat(item.payload()).isGreaterThan(last.get(item.tenant()));
            last.put(item.tenant(), item.payload());
        }
        assertThat(last).containsEntry("a", 199).containsEntry("b", 199);
    }

    @Test
    void backloggedNamesTheTenantsWithJobsQueued() {
        JobScheduler<String> s = scheduler();
        s.add(new JobScheduler.Item<>("a", 1, "a0"));
        s.add(new JobScheduler.Item<>("b", 1, "b0"));
        assertThat(s.backlogged()).isEqualTo(Set.of("a", "b"));
        assertThat(s.drainIf(p -> p.startsWith("b"))).containsExactly("b0");
        assertThat(s.backlogged()).isEqualTo(Set.of("a"));
        s.poll();
        assertThat(s.backlogged()).isEmpty();
    }

    @Test
    void finishingOrReleasingAJobHandedOutLeavesTheQueuedOnesAsTheyWere() {
        JobScheduler<Integer> s = scheduler();
        for (int i = 0; i < 3; i++) s.add(new JobScheduler.Item<>("a", 1, i));
        JobScheduler.Item<Integer> first = s.poll();
        s.releaseSlot(first);
        s.finished(first, 0);
        assertThat(s.size()).isEqualTo(2);
        assertThat(drain(s)).containsExactly(1, 2);
    }

    @Test
    void removeIfDropsMatchingJobsAcrossTenantsAndKeepsSizeRight() {
        JobScheduler<Integer> s = scheduler();
        for (int i = 0; i < 10; i++) {
            s.add(new JobScheduler.Item<>("a", 1, i));
            s.add(new JobScheduler.Item<>("b", 1, 100 + i));
        }
        s.add(new JobScheduler.Item<>("c", 1, 7)); // c has only a matching job

        int removed = s.removeIf(p -> p % 10 >= 5 || p == 7);

        // a loses 5,6,7,8,9; b loses 105..109; c loses its only job
        assertThat(removed).isEqualTo(11);
        assertThat(s.size()).isEqualTo(10);
        List<Integer> left = drain(s);
        assertThat(left).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 100, 101, 102, 103, 104);
        assertThat(s.size()).isZero();
        assertThat(s.poll()).isNull();
    }

    @Test
    void removeIfOfEverythingLeavesAWorkingEmptyScheduler() throws InterruptedException {
        JobScheduler<Integer> s = scheduler();
        for (int i = 0; i < 5; i++) s.add(new JobScheduler.Item<>("a", 1, i));
        s.poll(); // a is mid-turn with credit left

        assertThat(s.removeIf(p -> true)).isEqualTo(4);
        assertThat(s.size()).isZero();
        assertThat(s.poll()).isNull();
        assertThat(s.take(1, TimeUnit.MILLISECONDS)).isNull();

        s.add(new JobScheduler.Item<>("b", 1, 42));
        assertThat(s.size()).isEqualTo(1);
        assertThat(s.poll().payload()).isEqualTo(42);
    }

    @Test
    void removeIfMatchingNothingChangesNothing() {
        JobScheduler<Integer> s = scheduler();
        for (int i = 0; i < 5; i++) s.add(new JobScheduler.Item<>("a", 1, i));

        assertThat(s.removeIf(p -> p > 100)).isZero();
        assertThat(s.size()).isEqualTo(5);
        assertThat(drain(s)).containsExactly(0, 1, 2, 3, 4);
    }

    @Test
    void takeReturnsNullAfterTheTimeoutWhenNothingIsQueued() throws InterruptedException {
        JobScheduler<String> s = scheduler();

        long start = System.nanoTime();
        JobScheduler.Item<String> item = s.take(30, TimeUnit.MILLISECONDS);
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(item).isNull();
        assertThat(waitedMs).isGreaterThanOrEqualTo(25);
        assertThat(s.take(0, TimeUnit.MILLISECONDS)).isNull();
        assertThat(s.poll()).isNull();
    }

    @Test
    void aReservedTakeGetsNoJobWithoutReservedSlots() throws InterruptedException {
        JobScheduler<String> s = scheduler();
        s.add(new JobScheduler.Item<>("a", 1, "a0"));
        assertThat(s.take(10, TimeUnit.MILLISECONDS, JobScheduler.Slot.RESERVED)).isNull();
        assertThat(s.size()).isEqualTo(1);
    }

    @Test
    void takeWakesUpWhenAJobArrives() throws Exception {
        JobScheduler<String> s = scheduler();

        CompletableFuture<JobScheduler.Item<String>> taken = new CompletableFuture<>();
        Thread taker = Thread.ofPlatform().start(() -> {
            try {
                taken.complete(s.take(5, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                taken.completeExceptionally(e);
            }
        });
        ThreadStates.awaitTimedWaiting(taker); // the scheduler is empty: take waits
        long start = System.nanoTime();
        s.add(new JobScheduler.Item<>("a", 1.0, "job"));

        assertThat(taken.get(4, TimeUnit.SECONDS).payload()).isEqualTo("job");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("woken by add, not by the 5 s timeout").isLessThan(4_000);
        assertThat(s.size()).isZero();
    }

    @Test
    void concurrentProducersAndConsumersLoseAndDuplicateNothing() throws Exception {
        JobScheduler<Integer> s = scheduler();
        int perProducer = 5_000;
        List<CompletableFuture<Void>> producers = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            int base = p * perProducer;
            String tenant = "t" + p;
            producers.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < perProducer; i++) s.add(new JobScheduler.Item<>(tenant, 1 + (i % 7), base + i));
            }));
        }
        java.util.concurrent.ConcurrentLinkedQueue<Integer> got = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.concurrent.atomic.AtomicBoolean producersDone = new java.util.concurrent.atomic.AtomicBoolean();
        List<Thread> consumers = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            Thread t = new Thread(() -> {
                try {
                    while (true) {
                        JobScheduler.Item<Integer> item = s.take(20, TimeUnit.MILLISECONDS);
                        if (item != null) got.add(item.payload());
                        else if (producersDone.get() && s.size() == 0) return;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            t.start();
            consumers.add(t);
        }
        CompletableFuture.allOf(producers.toArray(CompletableFuture[]::new)).get(8, TimeUnit.SECONDS);
        producersDone.set(true);
        for (Thread t : consumers) t.join(8_000);

        assertThat(got).hasSize(4 * perProducer);
        assertThat(new java.util.HashSet<>(got)).hasSize(4 * perProducer);
        assertThat(s.size()).isZero();
    }
}
