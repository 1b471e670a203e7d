package com.fairpix.worker.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.ThreadStates;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;

/**
 * The fair scheduler's reserved slots, on a simulated clock: a worker with {@code cores} cores
 * runs one thread per slot, and the running jobs share the cores equally (processor sharing, as
 * the kernel's scheduler does), so a job of cost c takes c time units alone on a core.
 */
class ReservedSlotsTest {
    static final Map<String, Double> WEIGHTS = Map.of("w1a", 1.0, "w1b", 1.0, "w2", 2.0, "w4", 4.0);

    /** A job in the simulation: its tenant, cost, and when it arrived. */
    record Job(String tenant, double cost, double arrived) {}

    /** Discrete-event simulation of one worker. */
    static final class SimulatedWorker {
        final FairScheduler<Job> scheduler;
        final int cores;
        final int slots;
        final List<double[]> remaining = new ArrayList<>(); // per running job: {work left}
        final List<JobScheduler.Item<Job>> runningJobs = new ArrayList<>();
        final Map<String, Double> service = new HashMap<>();
        final Map<String, List<Double>> waits = new HashMap<>();
        final Map<String, Integer> reservedDispatches = new HashMap<>();
        int dispatches;
        int maxRunningOfOneTenant;
        double idleCoreTime;
        double now;

        SimulatedWorker(Map<String, Double> weights, int cores, int reserved) {
            this.scheduler = new FairScheduler<>(t -> weights.getOrDefault(t, 1.0), t -> Integer.MAX_VALUE, cores, reserved);
            this.cores = cores;
            this.slots = cores + reserved;
        }

        void arrive(Job job) {
            scheduler.add(new JobScheduler.Item<>(job.tenant(), job.cost(), job));
            dispatch();
        }

        /** Free threads take jobs, as the worker's processing threads do. */
        void dispatch() {
            JobScheduler.Item<Job> item;
            while (runningJobs.size() < slots && (item = scheduler.poll()) != null) {
                runningJobs.add(item);
                remaining.add(new double[] {item.cost()});
                service.merge(item.tenant(), item.cost(), Double::sum);
                waits.computeIfAbsent(item.tenant(), t -> new ArrayList<>()).add(now - item.payload().arrived());
                dispatches++;
                String tenant = item.tenant();
                long mine = runningJobs.stream().filter(j -> j.tenant().equals(tenant)).count();
                if (item.slot() == JobScheduler.Slot.RESERVED) reservedDispatches.merge(tenant, 1, Integer::sum);
                maxRunningOfOneTenant = Math.max(maxRunningOfOneTenant, (int) mine);
            }
        }

        /** Runs the clock to {@code until}, finishing jobs (and dispatching the next) on the way. */
        void runUntil(double until) {
            while (now < until) {
                int n = runningJobs.size();
                if (n == 0) {
                    idleCoreTime += cores * (until - now);
                    now = until;
                    return;
                }
                double rate = Math.min(1.0, (double) cores / n);
                double step = until - now;
                int first = -1;
                for (int i = 0; i < n; i++) {
                    double t = remaining.get(i)[0] / rate;
                    if (t <= step) {
                        step = t;
                        first = i;
                    }
                }
                for (double[] r : remaining) r[0] -= step * rate;
                idleCoreTime += Math.max(0, cores - n) * step;
                now += step;
                if (first >= 0) {
                    JobScheduler.Item<Job> done = runningJobs.remove(first);
                    remaining.remove(first);
                    scheduler.finished(done, 0);
                    dispatch();
                }
            }
        }
    }

    @Test
    void backloggedTenantsKeepTheirWeightSharesWithAReservedSlot() {
        SimulatedWorker worker = new SimulatedWorker(WEIGHTS, 2, 1);
        Random random = new Random(11);
        Map<String, Integer> submitted = new HashMap<>();
        while (worker.dispatches < 10_000) {
            // Every tenant stays backlogged: top each up to 20 queued jobs of mixed cost.
            for (String t : WEIGHTS.keySet()) {
                int queued = submitted.getOrDefault(t, 0) - worker.waits.getOrDefault(t, List.of()).size();
                for (int i = queued; i < 20; i++) {
                    worker.arrive(new Job(t, 0.5 + random.nextDouble() * 19.5, worker.now));
                    submitted.merge(t, 1, Integer::sum);
                }
            }
            worker.runUntil(worker.now + 1);
        }

        double total = worker.service.values().stream().mapToDouble(Double::doubleValue).sum();
        for (String t : WEIGHTS.keySet()) {
            double expected = WEIGHTS.get(t) / 8;
            assertThat(worker.service.get(t) / total).as("share of %s over %d dispatches", t, worker.dispatches)
                    .isCloseTo(expected, Percentage.withPercentage(5));
        }
        assertThat(worker.idleCoreTime).as("no core idles while tenants are backlogged").isZero();
    }

    /** The flood: one tenant with 2,000 queued jobs of cost 1–8; a quiet tenant sends a cost-2 job every 10 time units. */
    static SimulatedWorker quietBesideFlood(int reserved) {
        return quietBesideFlood(reserved, 2_000, 1, 8, 200, 5);
    }

    /**
     * {@code floodJobs} queued jobs of one tenant, of cost {@code minCost}..{@code maxCost}, on 2 cores; a quiet
     * tenant sends {@code quietJobs} jobs of cost 2, one every 10 time units.
     */
    static SimulatedWorker quietBesideFlood(int reserved, int floodJobs, double minCost, double maxCost, int quietJobs, long seed) {
        SimulatedWorker worker = new SimulatedWorker(Map.of(), 2, reserved);
        Random random = new Random(seed);
        for (int i = 0; i < floodJobs; i++) worker.arrive(new Job("flood", minCost + random.nextDouble() * (maxCost - minCost), 0));
        for (int i = 0; i < quietJobs; i++) {
            worker.runUntil(i * 10.0 + random.nextDouble());
            worker.arrive(new Job("quiet", 2, worker.now));
        }
        worker.runUntil(worker.now + 20);
        return worker;
    }

    @Test
    void aQuietTenantStartsOnArrivalWhileAFloodFillsEveryCore() {
        SimulatedWorker reserved = quietBesideFlood(1);
        SimulatedWorker plain = quietBesideFlood(0);

        assertThat(reserved.waits.get("quiet")).hasSize(200).allSatisfy(w -> assertThat(w).isZero());
        // Without the reserved slot the same arrivals wait for a flood job to end.
        double plainMax = plain.waits.get("quiet").stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        long plainWaited = plain.waits.get("quiet").stream().filter(w -> w > 0).count();
        assertThat(plainMax).isGreaterThan(1.0);
        assertThat(plainWaited).isGreaterThan(150); // 200 of 200 when written
        // The flood loses no core time either way.
        assertThat(reserved.idleCoreTime).isZero();
        assertThat(reserved.maxRunningOfOneTenant).as("the flood never holds the reserved slot").isEqualTo(2);
        assertThat(reserved.reservedDispatches).as("reserved-slot dispatches by tenant").containsOnlyKeys("quiet");
    }

    @Test
    void aQuietTenantStartsOnArrivalBesideAFloodOfLongJobsToo() {
        // Flood jobs of cost 50-100 (the virtual time moves once per long job); a quiet job of cost 2
        // every 10 time units, so several quiet jobs arrive while the same flood jobs run.
        SimulatedWorker worker = quietBesideFlood(1, 200, 50, 100, 100, 9);

        assertThat(worker.waits.get("quiet")).hasSize(100).allSatisfy(w -> assertThat(w).isZero());
        assertThat(worker.maxRunningOfOneTenant).isEqualTo(2);
    }

    @Test
    void aLoneTenantKeepsEveryCoreButNotTheReservedSlot() {
        SimulatedWorker worker = new SimulatedWorker(Map.of(), 4, 1);
        for (int i = 0; i < 500; i++) worker.arrive(new Job("alone", 1 + i % 5, 0));
        worker.runUntil(200);

        assertThat(worker.maxRunningOfOneTenant).isEqualTo(4);
        assertThat(worker.idleCoreTime).isZero();
        assertThat(worker.dispatches).isGreaterThan(200);
    }

    @Test
    void theReservedSlotIsNotForATenantAheadOfItsShare() throws InterruptedException {
        FairScheduler<String> s = new FairScheduler<>(t -> 1.0, t -> Integer.MAX_VALUE, 2, 1);
        // "greedy" is served alone for a while and runs ahead of the virtual time.
        for (int i = 0; i < 5; i++) s.add(new JobScheduler.Item<>("greedy", 10.0, "g" + i));
        for (int i = 0; i < 5; i++) {
            JobScheduler.Item<String> g = s.poll();
            assertThat(g.tenant()).isEqualTo("greedy");
            assertThat(g.slot()).isEqualTo(JobScheduler.Slot.SHARED);
            s.finished(g, 0);
        }
        // Another tenant's flood fills both shared slots.
        for (int i = 0; i < 100; i++) s.add(new JobScheduler.Item<>("flood", 1.0, "f" + i));
        JobScheduler.Item<String> flood1 = s.poll();
        assertThat(flood1.tenant()).isEqualTo("flood");
        assertThat(s.poll().tenant()).isEqualTo("flood");
        assertThat(s.poll()).as("the reserved slot is not the flood's").isNull();
        assertThat(s.take(0, TimeUnit.MILLISECONDS, JobScheduler.Slot.RESERVED)).isNull();

        s.add(new JobScheduler.Item<>("greedy", 10.0, "g5"));
        assertThat(s.poll()).as("greedy had more than its share: it waits for a shared slot").isNull();

        s.add(new JobScheduler.Item<>("newcomer", 1.0, "n0"));
        assertThat(s.take(0, TimeUnit.MILLISECONDS, JobScheduler.Slot.SHARED)).as("no shared slot free").isNull();
        JobScheduler.Item<String> newcomer = s.take(0, TimeUnit.MILLISECONDS, JobScheduler.Slot.RESERVED);
        assertThat(newcomer.payload()).as("a tenant within its share takes the reserved slot").isEqualTo("n0");
        assertThat(newcomer.slot()).isEqualTo(JobScheduler.Slot.RESERVED);
        assertThat(s.poll()).as("all three slots busy").isNull();

        // Slots are threads: a finished flood job frees its shared thread, which takes the next job by
        // start tag while the newcomer still runs on the reserved one (at normal priority beside the
        // shared threads' background priority, so the cores go to the newcomer first).
        s.finished(flood1, 0);
        JobScheduler.Item<String> next = s.take(0, TimeUnit.MILLISECONDS, JobScheduler.Slot.SHARED);
        assertThat(next.slot()).isEqualTo(JobScheduler.Slot.SHARED);
        assertThat(s.take(0, TimeUnit.MILLISECONDS, JobScheduler.Slot.RESERVED)).as("the reserved thread is busy").isNull();
        s.finished(newcomer, 0);
        s.add(new JobScheduler.Item<>("newcomer", 1.0, "n1"));
        assertThat(s.take(0, TimeUnit.MILLISECONDS, JobScheduler.Slot.RESERVED).payload()).as("the reserved slot is free again").isEqualTo("n1");
    }

    @Test
    void aReservedThreadIsWokenWhenTheLastSharedTakeMakesAQueuedJobItsOwn() throws Exception {
        FairScheduler<String> s = new FairScheduler<>(t -> 1.0, t -> Integer.MAX_VALUE, 1, 1);
        java.util.concurrent.CompletableFuture<JobScheduler.Item<String>> reserved = new java.util.concurrent.CompletableFuture<>();
        Thread taker = Thread.ofPlatform().start(() -> {
            try {
                reserved.complete(s.take(10, TimeUnit.SECONDS, JobScheduler.Slot.RESERVED));
            } catch (InterruptedException e) {
                reserved.completeExceptionally(e);
            }
        });
        ThreadStates.awaitTimedWaiting(taker); // the reserved thread waits: the shared slot is free
        // Equal start tags: the flood, backlogged first, is ahead until its first job is taken.
        s.add(new JobScheduler.Item<>("flood", 1.0, "f0"));
        s.add(new JobScheduler.Item<>("flood", 1.0, "f1"));
        s.add(new JobScheduler.Item<>("quiet", 1.0, "q0"));
        assertThat(reserved).as("nothing is the reserved slot's yet").isNotDone();
        assertThat(s.take(0, TimeUnit.MILLISECONDS, JobScheduler.Slot.SHARED).payload()).isEqualTo("f0");

        // The quiet job is first in line now, with the shared slot busy: the reserved thread takes it at once.
        assertThat(reserved.get(2, TimeUnit.SECONDS).payload()).isEqualTo("q0");
    }

    @Test
    void aReservedThreadWaitsWhileASharedSlotIsFree() throws InterruptedException {
        FairScheduler<String> s = new FairScheduler<>(t -> 1.0, t -> Integer.MAX_VALUE, 2, 1);
        s.add(new JobScheduler.Item<>("a", 1.0, "a0"));
        assertThat(s.take(0, TimeUnit.MILLISECONDS, JobScheduler.Slot.RESERVED)).as("shared threads are idle: the job is theirs").isNull();
        assertThat(s.take(0, TimeUnit.MILLISECONDS, JobScheduler.Slot.SHARED).payload()).isEqualTo("a0");
    }

    @Test
    void slotCountsAreChecked() {
        assertThatThrownBy(() -> new FairScheduler<String>(t -> 1.0, t -> 1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FairScheduler<String>(t -> 1.0, t -> 1, 2, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
