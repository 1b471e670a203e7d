package com.fairpix.core.job;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.UUID;

/** Job ids: UUIDv7 (RFC 9562 §5.7), so ids sort by creation time and index well. */
public final class JobIds {
    private static final SecureRandom RANDOM = new SecureRandom();

    private JobIds() {}

    /** A new id whose first 48 bits are {@code clock}'s time in epoch ms, the rest random. */
    public static String next(Clock clock) {
        long millis = clock.millis();
        long randA = RANDOM.nextInt(1 << 12);
        long msb = (millis << 16) | (0x7L << 12) | randA;
        long lsb = (RANDOM.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb).toString();
    }

    /** The smallest id of a job created at {@code epochMillis}: every id made before sorts below it. */
    public static String floor(long epochMillis) {
        return new UUID(Math.max(0, epochMillis) << 16, 0).toString();
    }

    /** True for the canonical lower-case UUID text form; anything else can never name a job. */
    public static boolean isValid(String id) {
        return id != null && id.length() == 36 && id.matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    }
}
