package com.fairpix.bench;

import com.fairpix.core.redis.Redis;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.core.usage.UsageTotals;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.ExpiryOption;

/**
 * The usage roll-up at billing scale (issue 39), against the stack's Redis: fills {@code --tenants}
 * tenants × every day of {@code --month} of day roll-ups in the stored form the ledger's script
 * writes ({@link UsageTotals#encode()}, one hash per day, field per tenant), plus one day of hour
 * roll-ups and a counted set of {@code --jobs} job ids, then prints what each costs in Redis
 * ({@code MEMORY USAGE ... SAMPLES 0}, exact). {@code scripts/bench-usage} then times
 * {@code fairpix usage --output csv} over the month; {@code --clean} deletes the keys again.
 *
 * <p>Usage: {@code UsageExportBench [--tenants 10000] [--month 2026-11] [--jobs 100000] [--clean]}
 */
public final class UsageExportBench {
    public static void main(String[] args) {
        int tenants = 10_000, jobs = 100_000;
        LocalDate first = LocalDate.of(2026, 11, 1);
        boolean clean = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--tenants" -> tenants = Integer.parseInt(args[++i]);
                case "--month" -> first = LocalDate.parse(args[++i] + "-01");
                case "--jobs" -> jobs = Integer.parseInt(args[++i]);
                case "--clean" -> clean = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        LocalDate last = first.plusMonths(1).minusDays(1);
        String url = System.getenv().getOrDefault("FAIRPIX_REDIS_URL", "redis://127.0.0.1:16379");
        try (UnifiedJedis redis = Redis.connect(url)) {
            if (clean) {
                for (LocalDate d = first; !d.isAfter(last); d = d.plusDays(1)) {
                    redis.del(RedisKeys.usageDay(d), RedisKeys.usageCounted(d));
                    for (int h = 0; h < 24; h++) redis.del(RedisKeys.usageHour(d, h));
                }
                System.out.println("deleted the usage keys of " + first + " .. " + last);
                return;
            }
            Random random = new Random(39);
            long expireAt = LocalDate.now(ZoneOffset.UTC).plusDays(2).atStartOfDay(ZoneOffset.UTC).toEpochSecond();
            long dayBytes = 0;
            int days = 0;
            long started = System.nanoTime();
            for (LocalDate d = first; !d.isAfter(last); d = d.plusDays(1), days++) {
                String key = RedisKeys.usageDay(d);
                redis.del(key);
                fill(redis, key, tenants, random);
                redis.expireAt(key, expireAt, ExpiryOption.NX);
                dayBytes += redis.memoryUsage(key, 0);
            }
            System.out.printf(Locale.ROOT, "filled %d tenants x %d days (%s .. %s) in %.1f s%n", tenants, days, first, last, (System.nanoTime() - started) / 1e9);
            System.out.printf(Locale.ROOT, "day roll-ups: %d bytes in all, %.1f bytes per tenant-day (MEMORY USAGE SAMPLES 0 of the day hashes)%n",
                    dayBytes, (double) dayBytes / ((long) tenants * days));
            // One day of hour roll-ups, every tenant active in every hour (the most a tenant-day can cost).
            long hourBytes = 0;
            for (int h = 0; h < 24; h++) {
                String key = RedisKeys.usageHour(first, h);
                redis.del(key);
                fill(redis, key, tenants, random);
                redis.expireAt(key, expireAt, ExpiryOption.NX);
                hourBytes += redis.memoryUsage(key, 0);
            }
            System.out.printf(Locale.ROOT, "hour roll-ups: %.1f bytes per tenant-hour; a tenant busy all 24 hours costs %.0f bytes a day in them%n",
                    (double) hourBytes / (24L * tenants), (double) hourBytes / tenants);
            String counted = RedisKeys.usageCounted(first);
            redis.del(counted);
            for (int i = 0; i < jobs; i += 1000) {
                String[] ids = new String[Math.min(1000, jobs - i)];
                for (int k = 0; k < ids.length; k++) ids[k] = java.util.UUID.randomUUID().toString();
                redis.sadd(counted, ids);
            }
            redis.expireAt(counted, expireAt, ExpiryOption.NX);
            System.out.printf(Locale.ROOT, "counted set: %.1f bytes per finished job (%d job ids)%n", (double) redis.memoryUsage(counted, 0) / jobs, jobs);
        }
    }

    /** One hash of {@code tenants} fields in batches of 1000 (HSET with many fields: few round trips). */
    private static void fill(UnifiedJedis redis, String key, int tenants, Random random) {
        Map<String, String> batch = new HashMap<>();
        for (int t = 0; t < tenants; t++) {
            long jobs = 1 + random.nextInt(5_000);
            long failed = random.nextInt((int) Math.min(jobs, 50) + 1);
            UsageTotals u = new UsageTotals(jobs, jobs - failed, failed, jobs * (20 + random.nextInt(300)), jobs * (50_000 + random.nextInt(5_000_000)),
                    jobs * (10_000 + random.nextInt(500_000)), jobs * (65_536 + random.nextInt(4_000_000)), 100_000_000L + random.nextInt(400_000_000));
            batch.put(tenantId(t), u.encode());
            if (batch.size() == 1000) {
                redis.hset(key, batch);
                batch.clear();
            }
        }
        if (!batch.isEmpty()) redis.hset(key, batch);
    }

    /** Tenant ids of a realistic length (shop-style names of 10-20 characters). */
    static String tenantId(int t) {
        return "tenant-" + String.format(Locale.ROOT, "%05d", t) + (t % 3 == 0 ? "-shop" : t % 3 == 1 ? "-eu" : "");
    }

}
