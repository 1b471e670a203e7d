package com.fairpix.ingest.capacity;

import com.fairpix.core.redis.RedisKeys;
import com.fairpix.ingest.admission.GuaranteeSharing;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;

/**
 * Every ingest node's demand, met in Redis: one script per pool and refresh, on the pool's slot
 * (all keys under {@code {pool:<pool>}}, so it runs on a Redis Cluster too), that adds this node's
 * counts to the hash of the current second ({@link RedisKeys#demand}, expiring after
 * {@link #TTL_SECONDS}) and returns the sum per tenant over the window's seconds. One round trip;
 * Redis time grows with the tenants counted (about a microsecond per field read or written).
 */
final class RedisDemand implements GuaranteeSharing.DemandStore {
    /** How long a second's bucket lives: the window plus a margin for clocks that differ between nodes. */
    static final int TTL_SECONDS = GuaranteeSharing.WINDOW_SECONDS + 6;
    /** KEYS: the buckets of the window, the current second's first; ARGV: TTL s, then tenant, nanotokens pairs. Returns tenant, sum pairs. */
    private static final String ADD_AND_SUM = """
            local k = KEYS[1]
            for i = 2, #ARGV, 2 do redis.call('HINCRBY', k, ARGV[i], ARGV[i + 1]) end
            if #ARGV > 1 then redis.call('EXPIRE', k, tonumber(ARGV[1])) end
            local sum, order = {}, {}
            for j = 1, #KEYS do
              local h = redis.call('HGETALL', KEYS[j])
              for i = 1, #h, 2 do
                local t, v = h[i], tonumber(h[i + 1])
                if sum[t] == nil then sum[t] = v; order[#order + 1] = t else sum[t] = sum[t] + v end
              end
            end
            local out = {}
            for _, t in ipairs(order) do out[#out + 1] = t; out[#out + 1] = sum[t] end
            return out
            """;

    private final UnifiedJedis redis;

    RedisDemand(UnifiedJedis redis) {
        this.redis = redis;
    }

    @Override
    public Map<String, Long> addAndSum(String pool, long epochSecond, Map<String, Long> asked, int windowSeconds) {
        List<String> keys = new ArrayList<>(windowSeconds);
        for (int i = 0; i < windowSeconds; i++) keys.add(RedisKeys.demand(pool, epochSecond - i));
        List<String> args = new ArrayList<>(1 + 2 * asked.size());
        args.add(Integer.toString(TTL_SECONDS));
        asked.forEach((t, n) -> {
            args.add(t);
            args.add(Long.toString(n));
        });
        // Sums stay exact: a second's count is at most 10^6 tokens/s × 10^9 nanotokens per node, far below 2^53 for any node count here.
        List<?> r = (List<?>) redis.eval(ADD_AND_SUM, keys, args);
        Map<String, Long> out = new HashMap<>(r.size());
        for (int i = 0; i + 1 < r.size(); i += 2) {
            out.put(text(r.get(i)), ((Number) r.get(i + 1)).longValue());
        }
        return out;
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : o.toString();
    }
}
