package com.fairpix.core.resilience;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.time.Duration;

/**
 * Circuit breaker settings shared by every dependency's breaker; keys and docs in {@link Setting}
 * ({@code overload.breaker.*}).
 *
 * @param failureRatePercent  failed calls in the window that open the breaker, percent
 * @param slowCallRatePercent slow calls in the window that open the breaker, percent
 * @param slowCall            a call at least this long counts as slow
 * @param windowCalls         size of the count-based sliding window, calls
 * @param minimumCalls        calls needed in the window before the breaker may open
 * @param open                how long an open breaker rejects before letting probes through
 * @param probes              calls a half-open breaker permits before it decides
 * @param probeSuccessPercent probes that must succeed for it to close, percent (Resilience4j
 *                            itself closes below {@code failureRatePercent}; {@link Breakers}
 *                            re-opens a breaker whose probes did worse than this)
 * @param slowCallBytesPerSecond the object store's allowed throughput: a call moving n bytes is
 *                            slow only past {@code slowCall + n / slowCallBytesPerSecond}
 *                            ({@link GuardedObjectStore})
 */
public record BreakerSettings(float failureRatePercent, float slowCallRatePercent, Duration slowCall, int windowCalls,
                              int minimumCalls, Duration open, int probes, double probeSuccessPercent, long slowCallBytesPerSecond) {

    /** The default allowed throughput, 8 MiB/s ({@code overload.breaker.slow-call-bytes-per-second}). */
    public static final long DEFAULT_BYTES_PER_SECOND = 8L << 20;

    public BreakerSettings(float failureRatePercent, float slowCallRatePercent, Duration slowCall, int windowCalls,
                           int minimumCalls, Duration open, int probes, double probeSuccessPercent) {
        this(failureRatePercent, slowCallRatePercent, slowCall, windowCalls, minimumCalls, open, probes, probeSuccessPercent, DEFAULT_BYTES_PER_SECOND);
    }

    public static BreakerSettings from(FairpixConfig c) {
        return new BreakerSettings((float) c.decimal(Setting.BREAKER_FAILURE_RATE), (float) c.decimal(Setting.BREAKER_SLOW_CALL_RATE),
                Duration.ofMillis(c.longValue(Setting.BREAKER_SLOW_CALL_MS)), c.integer(Setting.BREAKER_WINDOW_CALLS),
                c.integer(Setting.BREAKER_MINIMUM_CALLS), Duration.ofMillis(c.longValue(Setting.BREAKER_OPEN_MS)),
                c.integer(Setting.BREAKER_PROBES), c.decimal(Setting.BREAKER_PROBE_SUCCESS), c.longValue(Setting.BREAKER_SLOW_CALL_BYTES_PER_SECOND));
    }
}
