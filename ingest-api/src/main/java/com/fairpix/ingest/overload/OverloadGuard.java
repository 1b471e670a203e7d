package com.fairpix.ingest.overload;

import com.fairpix.core.error.RetryLater;
import com.fairpix.core.resilience.Breakers;
import com.fairpix.core.resilience.Dependency;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admission.Decision;
import java.util.Map;

/**
 * Overload protection on the ingest path: answers 503 at once while a dependency's circuit
 * breaker is open (here or on any other ingest node), admits in ramped steps after recovery
 * (tenants within their guarantees first), and sheds by backlog (borrowed traffic first, then all
 * but a reserved share). The nodes share their state farm-wide. See docs/overload.md.
 *
 * <p>Built by {@link OverloadGuards}: the implementation in {@code internal}, split by job (farm
 * view and gossip, ramp, shedding), with its meters bound from outside.
 */
public interface OverloadGuard extends AutoCloseable {
    /**
     * Before any work on a request: 503 at once when a dependency's breaker is open on this node,
     * or on another node (whose probes decide for the farm).
     *
     * @throws RetryLater the dependency, with its retry-after
     */
    void checkBreakers();

    /**
     * After admission admitted a job: the ramp and backlog shedding. Traffic above the tenant's
     * guarantee (borrowed tokens) goes first; a tenant within its guarantee is admitted until the
     * hard bound (then only a reserved share).
     *
     * @throws RetryLater overloaded ({@code ramp}, {@code shed-borrowed}, {@code shed-reserved}) with
     *                    its retry-after, distinct from the tenant's own limit
     */
    void checkAdmitted(Tenant tenant, String pool, Decision decision);

    /**
     * The refusal of a call refused by (or failed under) the breaker of {@code d}: the dependency,
     * {@code breaker: open}, and the time a breaker stays open as its retry-after.
     */
    RetryLater breakerOpen(Dependency d);

    /** This node's circuit breakers, one per dependency: the calls they guard go through them. */
    Breakers breakers();

    OverloadConfig config();

    /** The admission level now, 0..1 (0 while a breaker is open farm-wide, 1 outside a ramp). */
    double rampLevel();

    /** The pool's shedding level in the farm view: 0 none, 1 borrowed traffic, 2 all but the reserved share. */
    int sheddingLevel(String pool);

    /** This node's last backlog reading of the pool, queue seconds; NaN without one (or with shedding off). */
    double backlogSeconds(String pool);

    /** Whether {@code d}'s breaker is open here or on a node this one heard from lately. */
    boolean farmBreakerOpen(Dependency d);

    /**
     * For {@code GET /admin/v1/status}: {@code node} (this node's id), {@code farm} (its farm view:
     * breakers, ramp level and start, shedding, live nodes) and {@code nodes} (every registered
     * node's own {@link NodeState}).
     */
    Map<String, Object> status();

    /** Stops its timers and its farm channel; closes the clients it was given. */
    @Override
    void close();
}
