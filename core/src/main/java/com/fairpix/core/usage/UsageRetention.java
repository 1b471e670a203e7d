package com.fairpix.core.usage;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import java.time.Duration;

/**
 * How long the usage roll-ups live in Redis, each counted from the end of its UTC day.
 *
 * @param daily   the per-day roll-ups ({@code usage.retention-days})
 * @param hourly  the per-hour roll-ups ({@code usage.hourly-retention-days})
 * @param counted the per-day sets of counted job ids: as long as a job's record (and so a
 *                redelivery that could count it again) lives ({@code jobs.retention-seconds})
 */
public record UsageRetention(Duration daily, Duration hourly, Duration counted) {
    public UsageRetention {
        if (daily.isNegative() || daily.isZero() || hourly.isNegative() || hourly.isZero() || counted.isNegative() || counted.isZero()) {
            throw new IllegalArgumentException("usage retentions must be positive: " + daily + ", " + hourly + ", " + counted);
        }
    }

    public static UsageRetention from(FairpixConfig c) {
        return new UsageRetention(Duration.ofDays(c.integer(Setting.USAGE_RETENTION_DAYS)), Duration.ofDays(c.integer(Setting.USAGE_HOURLY_RETENTION_DAYS)),
                Duration.ofSeconds(c.longValue(Setting.JOB_RETENTION_SECONDS)));
    }
}
