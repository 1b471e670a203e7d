package com.fairpix.it;

import static com.fairpix.it.HostileFarm.THUMB;
import static com.fairpix.it.HostileFarm.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.json.Json;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.core.config.Setting;
import com.fairpix.core.job.JobIds;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * Tenant A reuses Idempotency-Keys: a key replays only the same request (other bytes or another
 * spec are 422, another tenant's key space is its own); a duplicate while the first is being
 * accepted is 409, and concurrent duplicates make one job, never two. B's service around these
 * attacks: {@link HostileFarm}.
 */
class HostileIdempotencyIT {
    @RegisterExtension
    static final HostileFarm farm = new HostileFarm("idempotency");

    /** A's other image, made before B is measured: the attacker's own CPU is not the farm's. */
    static final byte[] OTHER_BYTES = Farm.smallJpeg(640, 480, 8);
    /**
     * For the duplicate race: one real job for the worker, the size of B's own. (With a 5.3-megapixel
     * photo, 17 times B's pixels, B's jobs that overlap its decode share the two cores with it and
     * take 3-6 times their baseline: fair sharing with a legitimate job, not an attack; the flood of
     * legitimate jobs is IsolationIT's.)
     */
    static final byte[] RACE_A = Farm.smallJpeg(640, 480, 9);

    @Test
    void anIdempotencyKeyReplaysOnlyTheSameRequest() throws Exception {
        String key = "idem-" + UUID.randomUUID();
        HttpResponse<String> first = farm.submitWithKey(farm.keyA(), farm.photoB(), THUMB, key);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
        String id = Json.mapper().readTree(first.body()).get("id").asText();

        HttpResponse<String> again = farm.submitWithKey(farm.keyA(), farm.photoB(), THUMB, key);
        assertThat(again.statusCode()).isEqualTo(202);
        assertThat(Json.mapper().readTree(again.body()).get("id").asText()).isEqualTo(id);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");

        assertProblem(422, "idempotency-key-reused", farm.submitWithKey(farm.keyA(), OTHER_BYTES, THUMB, key));
        String pngSpec = THUMB.replace("\"webp\",\"quality\":60", "\"png\"");
        assertProblem(422, "idempotency-key-reused", farm.submitWithKey(farm.keyA(), farm.photoB(), pngSpec, key));
        // Another tenant's key space is its own.
        assertThat(farm.submitWithKey(farm.keyB(), farm.photoB(), THUMB, key).statusCode()).isEqualTo(202);
    }

    @Test
    void aDuplicateWhileTheFirstIsInFlightIs409() throws Exception {
        // A claim whose job record is not written yet, as the first request leaves it while it is being accepted.
        String key = "idem-" + UUID.randomUUID();
        try (UnifiedJedis redis = Redis.connect(farm.config().get(Setting.REDIS_URL))) {
            redis.setex(RedisKeys.idempotency(farm.tenantA(), key), 60, JobIds.next(Clock.systemUTC()));
        }
        JsonNode p = assertProblem(409, "idempotency-in-flight", farm.submitWithKey(farm.keyA(), farm.photoB(), THUMB, key));
        assertThat(p.get("detail").asText()).contains("still being processed");

        // Real concurrent duplicates: whatever their interleaving, one job is accepted, never two.
        String raced = "idem-" + UUID.randomUUID();
        ExecutorService pool = HostileFarm.attackerPool(6);
        try {
            List<Future<HttpResponse<String>>> fs = new ArrayList<>();
            for (int i = 0; i < 6; i++) fs.add(pool.submit(() -> farm.submitWithKey(farm.keyA(), RACE_A, THUMB, raced)));
            Set<String> ids = new HashSet<>();
            int conflicts = 0;
            for (Future<HttpResponse<String>> f : fs) {
                HttpResponse<String> r = f.get();
                if (r.statusCode() == 409) {
                    assertProblem(409, "idempotency-in-flight", r);
                    conflicts++;
                } else {
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                    ids.add(Json.mapper().readTree(r.body()).get("id").asText());
                }
            }
            assertThat(ids).hasSize(1);
            System.out.printf("HostileIdempotencyIT: 6 concurrent duplicates: 1 job, %d answered 409 while it was in flight%n", conflicts);
        } finally {
            pool.shutdownNow();
        }
    }
}
