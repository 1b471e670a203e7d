package com.fairpix.worker.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

/** Start-time fair queueing across tenants, in cost units; the scheduler contract too (JobSchedulerContract). */
class FairSchedulerTest extends JobSchedulerContract {
    @Override
    protected <T> JobScheduler<T> scheduler(ToDoubleFunction<String> weights) {
        return new FairScheduler<>(weights);
    }

    @Test
    void backloggedTenantsGetServiceInProportionToTheirWeights() {
        Map<String, Double> weights = Map.of("a", 1.0, "b", 1.0, "c", 2.0, "d", 4.0);
        FairScheduler<Integer> s = new FairScheduler<>(weights::get);
        Random random = new Random(42);
        for (int i = 0; i < 10_000; i++) {
            for (String t : List.of("a", "b", "c", "d")) s.add(new FairScheduler.Item<>(t, 0.5 + random.nextDouble() * 19.5, i));
        }

        Map<String, Double> service = new HashMap<>();
        for (int i = 0; i < 10_000; i++) {
            FairScheduler.Item<Integer> item = s.poll();
            service.merge(item.tenant(), item.cost(), Double::sum);
        }

        double total = service.values().stream().mapToDouble(Double::doubleValue).sum();
        double totalWeight = 8;
        for (String t : weights.keySet()) {
            double expected = weights.get(t) / totalWeight;
            double actual = service.getOrDefault(t, 0.0) / total;
            assertThat(actual).as("share of %s (weight %s): %.4f, expected %.4f", t, weights.get(t), actual, expected)
                    .isCloseTo(expected, org.assertj.core.data.Percentage.withPercentage(5));
        }
        assertThat(FairnessMeter.jain(weights.keySet().stream().map(t -> service.getOrDefault(t, 0.0) / weights.get(t)).toList())).isGreaterThan(0.99);
    }

    @Test
    void sharesHoldInEveryWindowNotJustOnAverage() {
        Map<String, Double> weights = Map.of("a", 1.0, "b", 1.0, "c", 2.0, "d", 4.0);
        FairScheduler<Integer> s = new FairScheduler<>(weights::get);
        Random random = new Random(7);
        for (int i = 0; i < 10_000; i++) {
            for (String t : List.of("a", "b", "c", "d")) s.add(new FairScheduler.Item<>(t, 0.5 + random.nextDouble() * 19.5, i));
        }

        for (int window = 0; window < 10; window++) {
            Map<String, Double> service = new HashMap<>();
            for (int i = 0; i < 1_000; i++) {
                FairScheduler.Item<Integer> item = s.poll();
                service.merge(item.tenant(), item.cost(), Double::sum);
            }
            double total = service.values().stream().mapToDouble(Double::doubleValue).sum();
            for (String t : weights.keySet()) {
                double expected = weights.get(t) / 8;
                assertThat(service.getOrDefault(t, 0.0) / total).as("window %d, tenant %s", window, t)
                        .isCloseTo(expected, org.assertj.core.data.Percentage.withPercentage(10));
            }
        }
    }

    /**
     * A new tenant is not stuck behind a flood: tenant A floods 1,000 jobs, then tenant B submits one; B's job must
     * start within one scheduling round, i.e. at most as many dispatches as there are active tenants.
     * Jobs cost 2 units (a 1 MP image, resize + encode), the cheapest common job.
     */
    @Test
    void newTenantsJobIsDispatchedWithinOneDispatchPerActiveTenant() {
        List<Integer> waits = new ArrayList<>();
        // B may arrive at any point of A's turn: after 0, 1, 2... of A's jobs were dispatched.
        for (int dispatchedBefore = 0; dispatchedBefore < 12; dispatchedBefore++) {
            FairScheduler<String> s = new FairScheduler<>(t -> 1.0);
            for (int i = 0; i < 1_000; i++) s.add(new FairScheduler.Item<>("a", 2.0, "a" + i));
            for (int i = 0; i < dispatchedBefore; i++) assertThat(s.poll().tenant()).isEqualTo("a");

            s.add(new FairScheduler.Item<>("b", 2.0, "b0"));
            int dispatches = 0;
            FairScheduler.Item<String> item;
            do {
                item = s.poll();
                dispatches++;
            } while (!item.tenant().equals("b"));
            waits.add(dispatches);
        }

        int activeTenants = 2;
        assertThat(waits).as("dispatches until B's job, for B arriving after 0..11 of A's").allSatisfy(w -> assertThat(w).isLessThanOrEqualTo(activeTenants));
    }

    @Test
    void aCostlyJobIsNotStarvedAndIsPaidForAfterwards() {
        FairScheduler<String> s = new FairScheduler<>(t -> 1.0);
        s.add(new FairScheduler.Item<>("big", 95.0, "huge job"));
        s.add(new FairScheduler.Item<>("big", 95.0, "second huge job"));
        for (int i = 0; i < 100; i++) s.add(new FairScheduler.Item<>("small", 5.0, "s" + i));

        assertThat(List.of(s.poll().payload(), s.poll().payload())).contains("huge job");
        // 95 units of service for "big" are matched by 19 of "small"'s 5-unit jobs before big runs again.
        int smallBetween = 0;
        while (!s.poll().tenant().equals("big")) smallBetween++;
        assertThat(smallBetween).isBetween(18, 20);
    }

    @Test
    void aTenantThatWentIdleBanksNoCredit() {
        // a is served once and goes idle while b keeps working; when a returns it starts at the
        // current virtual time, so it alternates with b instead of catching up in a burst.
        FairScheduler<String> s = new FairScheduler<>(t -> 1.0);
        s.add(new FairScheduler.Item<>("a", 1.0, "a-alone"));
        for (int i = 0; i < 50; i++) s.add(new FairScheduler.Item<>("b", 1.0, "early-b" + i));
        assertThat(s.poll().payload()).isEqualTo("a-alone");
        for (int i = 0; i < 20; i++) assertThat(s.poll().tenant()).isEqualTo("b");

        for (int i = 0; i < 30; i++) s.add(new FairScheduler.Item<>("a", 1.0, "a" + i));
        Map<String, Integer> firstTen = new HashMap<>();
        for (int i = 0; i < 10; i++) firstTen.merge(s.poll().tenant(), 1, Integer::sum);
        assertThat(firstTen.get("a")).isBetween(4, 6);
    }

    @Test
    void aTenantEmptiedByRemoveIfBanksNoCreditEither() {
        FairScheduler<String> s = new FairScheduler<>(t -> 1.0);
        for (int i = 0; i < 3; i++) s.add(new FairScheduler.Item<>("a", 1.0, "old" + i));
        for (int i = 0; i < 60; i++) s.add(new FairScheduler.Item<>("b", 1.0, "b" + i));
        s.poll();
        s.removeIf(p -> p.startsWith("old"));
        for (int i = 0; i < 20; i++) s.poll();

        for (int i = 0; i < 30; i++) s.add(new FairScheduler.Item<>("a", 1.0, "a" + i));
        Map<String, Integer> firstTen = new HashMap<>();
        for (int i = 0; i < 10; i++) firstTen.merge(s.poll().tenant(), 1, Integer::sum);
        assertThat(firstTen.get("a")).isBetween(4, 6);
    }

    @Test
    void aTenantAtItsRunningCapIsPassedOverUntilOneOfItsJobsFinishes() {
        // Running cap 2 per tenant; three tenants with work; start order interleaves.
        FairScheduler<String> s = new FairScheduler<>(t -> 1.0, t -> 2);
        for (int i = 0; i < 100; i++) for (String t : List.of("a", "b", "c")) s.add(new FairScheduler.Item<>(t, 1.0, t + i));

        List<FairScheduler.Item<String>> items = new ArrayList<>();
        for (int i = 0; i < 6; i++) items.add(s.poll());
        List<String> started = items.stream().map(FairScheduler.Item::tenant).toList();
        assertThat(s.poll()).as("every tenant is at its cap of 2").isNull();
        assertThat(started).containsExactlyInAnyOrder("a", "a", "b", "b", "c", "c");
        assertThat(started.subList(0, 3)).containsExactlyInAnyOrder("a", "b", "c");

        s.finished(items.get(started.indexOf("b")), 0);
        assertThat(s.poll().tenant()).isEqualTo("b");
        assertThat(s.poll()).isNull();
    }

    @Test
    void aJobThatCostMoreThanEstimatedIsChargedToItsTenant() {
        FairScheduler<String> s = new FairScheduler<>(t -> 1.0);
        for (int i = 0; i < 100; i++) for (String t : List.of("a", "b")) s.add(new FairScheduler.Item<>(t, 1.0, t + i));
        FairScheduler.Item<String> first = s.poll();
        // It turned out to cost 10 units instead of 1: the other tenant catches up before it runs again.
        s.finished(first, 9.0);
        String other = first.tenant().equals("a") ? "b" : "a";
        for (int i = 0; i < 9; i++) assertThat(s.poll().tenant()).isEqualTo(other);
    }

    @Test
    void aNonFiniteCostIsRefused() {
        FairScheduler<String> s = new FairScheduler<>(t -> 1.0);
        assertThatThrownBy(() -> s.add(new FairScheduler.Item<>("a", Double.NaN, "x"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.add(new FairScheduler.Item<>("a", Double.POSITIVE_INFINITY, "x"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void weightChangeAppliesFromTheNextRound() {
        Map<String, Double> weights = new HashMap<>(Map.of("a", 1.0, "b", 1.0));
        FairScheduler<Integer> s = new FairScheduler<>(weights::get);
        for (int i = 0; i < 1_000; i++) {
            s.add(new FairScheduler.Item<>("a", 1.0, i));
            s.add(new FairScheduler.Item<>("b", 1.0, i));
        }
        for (int i = 0; i < 100; i++) s.poll();

        weights.put("b", 3.0);
        Map<String, Integer> count = new HashMap<>();
        for (int i = 0; i < 800; i++) count.merge(s.poll().tenant(), 1, Integer::sum);

        assertThat((double) count.get("b") / count.get("a")).isCloseTo(3.0, org.assertj.core.data.Offset.offset(0.2));
    }

    @Test
    void aReleasedSlotTakesTheNextJobWhileTheReleasedJobStillCountsAgainstItsTenantsCap() {
        // One shared slot, tenant a capped at one running job.
        FairScheduler<String> s = new FairScheduler<>(t -> 1.0, t -> t.equals("a") ? 1 : 10, 1, 0);
        s.add(new FairScheduler.Item<>("a", 1, "a1"));
        s.add(new FairScheduler.Item<>("a", 1, "a2"));
        s.add(new FairScheduler.Item<>("b", 1, "b1"));
        FairScheduler.Item<String> first = s.poll();
        assertThat(first.payload()).isEqualTo("a1");
        assertThat(s.poll()).as("the only slot is taken").isNull();

        s.releaseSlot(first);
        FairScheduler.Item<String> second = s.poll();
        assertThat(second).as("the freed slot serves another tenant: a is still at its cap").isNotNull();
        assertThat(second.payload()).isEqualTo("b1");

        s.finished(second, 0);
        assertThat(s.poll()).as("a's first job has not finished: its cap holds").isNull();

        s.add(new FairScheduler.Item<>("b", 1, "b2"));
        FairScheduler.Item<String> fourth = s.poll();
        assertThat(fourth.payload()).isEqualTo("b2");
        s.finished(first, 0); // while b2 holds the only slot
        assertThat(s.poll()).as("finishing a released job frees no second slot: a2 may run now, but no slot is free").isNull();
        s.finished(fourth, 0);
        assertThat(s.poll().payload()).isEqualTo("a2");
    }
}
