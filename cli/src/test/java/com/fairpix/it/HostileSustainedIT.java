package com.fairpix.it;

import static com.fairpix.it.HostileFarm.THUMB;
import static com.fairpix.it.HostileFarm.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tenant A repeats its refused attacks from two connections for 10 s: each gets its precise answer
 * until A's refusal budget on the node is spent, then 429 too-many-refusals before the body, held a
 * second each; once A stops, its precise answers come back after the Retry-After it was given. B's
 * service through it: {@link HostileFarm} (most of the suite's attacked jobs of B's are this class's).
 */
class HostileSustainedIT {
    @RegisterExtension
    static final HostileFarm farm = new HostileFarm("sustained");

    /** How long the sustained attack lasts, and from how many connections of A's at once. */
    static final Duration SUSTAINED = Duration.ofSeconds(10);
    static final int ATTACKERS = 2;

    @Test
    void aSustainedMixOfRefusedAttacksIsAnsweredAndThenThrottledBeforeTheBody() throws Exception {
        // Each attack of the other hostile classes answers once; a hostile tenant repeats them. Here
        // ATTACKERS connections of A's cycle through them for SUSTAINED while B keeps its load (the
        // mix: HostileFarm.refusedMix). Each gets its precise answer until A's refusal budget on the
        // node is spent (ingest.tenant-refusal-burst 100 tokens, a refusal costing 1 + 1 per MiB
        // read, 10 tokens/s back); after that, 429 too-many-refusals before the body is read.
        String reused = "idem-" + UUID.randomUUID();
        assertThat(farm.submitWithKey(farm.keyA(), farm.photoB(), THUMB, reused).statusCode()).isEqualTo(202);
        HostileFarm.Tally tally = new HostileFarm.Tally();
        List<HostileFarm.ThrowingRunnable> attacks = farm.refusedMix(farm.keyA(), reused, tally);
        long end = System.nanoTime() + SUSTAINED.toNanos();
        ExecutorService pool = HostileFarm.attackerPool(ATTACKERS);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < ATTACKERS; t++) {
                int offset = t;
                fs.add(pool.submit(() -> {
                    for (int i = offset; System.nanoTime() < end; i++) attacks.get(i % attacks.size()).run();
                    return null;
                }));
            }
            for (Future<?> f : fs) f.get();
        } finally {
            pool.shutdownNow();
        }
        System.out.printf("HostileSustainedIT: sustained attack, %d s from %d connections: %d precise refusals, %d answered 429 too-many-refusals before the body%n",
                SUSTAINED.toSeconds(), ATTACKERS, tally.refused.get(), tally.throttled.get());
        assertThat(tally.refused.get()).as("precise answers before the budget ran out").isGreaterThanOrEqualTo(attacks.size());
        assertThat(tally.throttled.get()).as("the refusal budget stopped the loop").isPositive();
        // Held a second each before their 429 (ingest.refusal-hold-ms), two connections make about
        // 20 in 10 s; answered at once, they looped ~4,000 times.
        assertThat(tally.throttled.get()).as("throttled requests are held, not answered in a loop").isLessThanOrEqualTo(ATTACKERS * SUSTAINED.toSeconds() * 2);
        // A gets its precise answers back once it stops: the debt of its last 25 MiB refusals (26
        // tokens each) is repaid at 10 tokens/s, and the answer says when to come back.
        String bad = "{\"variants\":{\"t\":[{\"op\":\"spin\"}]}}";
        long deadline = System.nanoTime() + 15_000_000_000L;
        HttpResponse<String> back = farm.attacker().submitMultipart(farm.keyA(), farm.photoB(), "a.jpg", bad);
        while (back.statusCode() == 429 && System.nanoTime() < deadline) {
            long retryAfter = Long.parseLong(back.headers().firstValue("Retry-After").orElseThrow());
            assertThat(retryAfter).isBetween(1L, 11L);
            Thread.sleep(retryAfter * 1000);
            back = farm.attacker().submitMultipart(farm.keyA(), farm.photoB(), "a.jpg", bad);
        }
        assertProblem(400, "invalid-spec", back);
    }
}
