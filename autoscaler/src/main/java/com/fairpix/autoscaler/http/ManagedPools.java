package com.fairpix.autoscaler.http;

import com.fairpix.autoscaler.policy.Decision;
import com.fairpix.autoscaler.policy.PolicyConfig;
import java.util.List;
import java.util.Map;

/**
 * The pools the admin API reads and steers, as the autoscaler exposes them (the http package's
 * view of {@code Autoscaler}, which depends on this package, not the reverse). Every method taking
 * a pool throws {@link com.fairpix.core.error.Rejected} (not found) for one it does not manage.
 */
public interface ManagedPools {
    /** The pools managed, in the order configured. */
    List<String> pools();

    /** The actuator's kind: {@code local}, {@code kubernetes} or {@code dry-run}. */
    String actuatorKind();

    /** The pool's mode, desired and actual replicas, last decision, signals and policy, as JSON members. */
    Map<String, Object> status(String pool);

    /** The pool's last {@code limit} decisions, newest first. */
    List<Decision> decisions(String pool, int limit);

    /** The pool's policy now. */
    PolicyConfig policy(String pool);

    /** Swaps the pool's whole policy (hot reload); it applies from the next evaluation. */
    void reconfigure(String pool, PolicyConfig next);

    /**
     * Pins the pool to {@code replicas} until {@link #resume}.
     *
     * @throws com.fairpix.core.error.Rejected invalid, {@code replicas-out-of-bounds}, outside the
     *         policy's minReplicas..maxReplicas
     */
    void set(String pool, int replicas);

    /** Holds the pool's current size; decisions are still made and logged. */
    void pause(String pool);

    /** Hands the pool back to the policy (ends a pause or a manual set). */
    void resume(String pool);
}
