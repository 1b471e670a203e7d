package com.fairpix.webhooks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * When a failed webhook delivery is tried again: one delay per retry (the first attempt is
 * immediate), each stretched by up to 20 % random jitter so a recovering endpoint is not hit by
 * every delivery at once. The default ({@code 5s,5m,30m,2h,5h,10h,10h}) spans about 27.6 h,
 * following Standard Webhooks' suggested schedule. {@code Retry-After} may only lengthen a delay.
 *
 * @param delays delay before retry n (n = 0 is the second attempt)
 */
public record RetrySchedule(List<Duration> delays) {
    /** Longest {@code Retry-After} we honour: a receiver must not park a delivery for days. */
    public static final Duration MAX_RETRY_AFTER = Duration.ofHours(10);

    public RetrySchedule {
        delays = List.copyOf(delays);
    }

    /**
     * Parses {@code 5s,5m,30m,2h} (units s, m, h; {@code ms} for tests).
     *
     * @throws IllegalArgumentException naming the bad element
     */
    public static RetrySchedule parse(String text) {
        List<Duration> out = new ArrayList<>();
        if (text == null || text.isBlank()) return new RetrySchedule(out);
        for (String part : text.split(",")) {
            String p = part.trim().toLowerCase(Locale.ROOT);
            try {
                if (p.endsWith("ms")) out.add(Duration.ofMillis(Long.parseLong(p.substring(0, p.length() - 2))));
                else if (p.endsWith("s")) out.add(Duration.ofSeconds(Long.parseLong(p.substring(0, p.length() - 1))));
                else if (p.endsWith("m")) out.add(Duration.ofMinutes(Long.parseLong(p.substring(0, p.length() - 1))));
                else if (p.endsWith("h")) out.add(Duration.ofHours(Long.parseLong(p.substring(0, p.length() - 1))));
                else throw new NumberFormatException();
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("retry schedule element '" + part.trim() + "' must be a number with unit ms, s, m or h");
            }
        }
        return new RetrySchedule(out);
    }

    /** Attempts in all: the first plus one per delay. */
    public int maxAttempts() {
        return delays.size() + 1;
    }

    /**
     * The wait after failed attempt number {@code attempt} (1-based), or null when it was the last.
     *
     * @param retryAfter the receiver's {@code Retry-After}, or null; honoured up to {@link #MAX_RETRY_AFTER}
     */
    public Duration after(int attempt, Duration retryAfter, RandomGenerator random) {
        if (attempt >= maxAttempts()) return null;
        Duration base = delays.get(attempt - 1);
        long jitter = (long) (base.toMillis() * 0.2 * random.nextDouble());
        Duration d = base.plusMillis(jitter);
        if (retryAfter != null) {
            Duration capped = retryAfter.compareTo(MAX_RETRY_AFTER) > 0 ? MAX_RETRY_AFTER : retryAfter;
            if (capped.compareTo(d) > 0) d = capped;
        }
        return d;
    }
}
