package com.fairpix.webhooks.internal;

import com.fairpix.webhooks.DeliveryStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims due deliveries from the store under a lease and runs each attempt on {@code attempts},
 * never more than {@code maxInFlight} at once: what this dispatcher cannot run now stays due in the
 * store, not in memory. Tenants are served in turn: the room of one claim is shared equally among
 * the tenants with due work (what one leaves unused goes to the others), and a tenant just served
 * ranks behind those still waiting. However many deliveries one tenant has due, another tenant's
 * due delivery is claimed at the next poll.
 */
final class ClaimLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ClaimLoop.class);
    /** Longer than an attempt's 15 s deadline: a claim outlives its attempt unless the dispatcher died. */
    static final Duration LEASE = Duration.ofSeconds(60);
    /** Most deliveries claimed at once. */
    static final int MAX_CLAIM = 200;

    private final DeliveryStore deliveries;
    private final BiConsumer<String, String> attempt;
    private final Executor attempts;
    private final int maxInFlight;
    private final Duration pollInterval;
    private final Clock clock;
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean running = true;

    /** @param attempt runs one attempt, given the tenant and the delivery id */
    ClaimLoop(DeliveryStore deliveries, BiConsumer<String, String> attempt, Executor attempts, int maxInFlight, Duration pollInterval, Clock clock) {
        this.deliveries = deliveries;
        this.attempt = attempt;
        this.attempts = attempts;
        this.maxInFlight = maxInFlight;
        this.pollInterval = pollInterval;
        this.clock = clock;
    }

    @Override
    public void run() {
        while (running) {
            try {
                int room = room();
                // Nothing more is due (or no room): wait for the next poll.
                if (room <= 0 || claim(room) < room) Thread.sleep(pollInterval.toMillis());
            } catch (InterruptedException e) {
                break;
            } catch (RuntimeException e) {
                if (!running) break;
                log.warn("webhook claim loop: {}", e.toString());
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException stop) {
                    break;
                }
            }
        }
    }

    /** How many more attempts may start now. */
    int room() {
        return Math.min(MAX_CLAIM, maxInFlight - inFlight.get());
    }

    /**
     * Claims up to {@code max} due deliveries, shared among the tenants with due work, and hands each
     * to an attempt.
     *
     * @return the deliveries claimed
     */
    int claim(int max) {
        Instant now = clock.instant();
        List<String> active = deliveries.dueTenants(now, max);
        int left = max;
        while (left > 0 && !active.isEmpty()) {
            int share = Math.max(1, left / active.size());
            List<String> more = new ArrayList<>();
            for (String tenant : active) {
                if (left == 0) break;
                int want = Math.min(share, left);
                List<String> ids = deliveries.claimDue(tenant, now, LEASE, want);
                left -= ids.size();
                for (String id : ids) start(tenant, id);
                // A tenant that took its whole share may have more due: it may take room the others left.
                if (ids.size() == want) more.add(tenant);
            }
            active = more;
        }
        return max - left;
    }

    private void start(String tenant, String id) {
        inFlight.incrementAndGet();
        attempts.execute(() -> {
            try {
                attempt.accept(tenant, id);
            } catch (RuntimeException e) {
                log.warn("webhook attempt {} of {} failed on our side: {}", id, tenant, e.toString());
            } finally {
                inFlight.decrementAndGet();
            }
        });
    }

    /** Attempts running now. */
    int inFlight() {
        return inFlight.get();
    }

    /** Ends the loop; interrupt its thread to end a wait at once. */
    void stop() {
        running = false;
    }
}
