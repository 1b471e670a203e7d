package com.fairpix.autoscaler.actuate.internal;

import com.fairpix.autoscaler.actuate.Actuator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Changes nothing: logs each decision and pretends it happened, so the policy can be watched safely. */
public final class DryRunActuator implements Actuator {
    private static final Logger log = LoggerFactory.getLogger(DryRunActuator.class);
    private final Map<String, Integer> replicas = new ConcurrentHashMap<>();
    private final int initial;

    /** @param initial replicas each pool is assumed to start with */
    public DryRunActuator(int initial) {
        this.initial = initial;
    }

    @Override
    public String kind() { return "dry-run"; }

    @Override
    public int replicas(String pool) {
        return replicas.getOrDefault(pool, initial);
    }

    @Override
    public void scale(String pool, int n) {
        log.info("dry-run: would scale pool {} from {} to {} replicas", pool, replicas(pool), n);
        replicas.put(pool, n);
    }
}
