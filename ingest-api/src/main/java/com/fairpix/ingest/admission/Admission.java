package com.fairpix.ingest.admission;

import com.fairpix.core.tenant.Tenant;

/**
 * Admission control: whether one job of a tenant may enter the farm now, by rate (token bucket
 * with a guaranteed share and borrowing up to a ceiling), daily quota and concurrency. See
 * docs/admission.md for the algorithm and its sources.
 *
 * <p>Implementations: in memory ({@code internal.LocalAdmission}, one node, injectable clock) and
 * Redis ({@code internal.RedisAdmission}, one Lua script per decision, Redis's clock), the latter
 * wrapped by {@code internal.FailoverAdmission} for Redis outages. Build them with
 * {@link Admissions}.
 */
public interface Admission {
    /**
     * Decides, and when admitted charges every policy at once (atomically: no check-then-act race).
     *
     * @param tenant   the tenant as loaded for this request (its limits are read here)
     * @param pool     the worker pool the job goes to (whose capacity it borrows from and whose
     *                 share scales the tenant's guarantee)
     * @param costNano the job's cost, nanotokens ({@link Cost})
     * @param jobId    the job's id; admitted jobs hold a concurrency lease under it until
     *                 {@link #release} or the lease TTL
     */
    Decision decide(Tenant tenant, String pool, long costNano, String jobId);

    /** {@link #decide(Tenant, String, long, String)} for a job of the tenant's own pool. */
    default Decision decide(Tenant tenant, long costNano, String jobId) {
        return decide(tenant, tenant.pool(), costNano, jobId);
    }

    /**
     * Charges cost known only after the fact (e.g. real work above the estimate), forced: the
     * guaranteed bucket may go negative (debt), delaying the tenant's next admissions. Against the
     * tenant's own pool's share and borrowing bucket ({@link Tenant#pool()}).
     */
    void charge(Tenant tenant, long costNano);

    /**
     * The tenant's standing now, charging and writing nothing: a {@link Decision} of cost 0 with the
     * tokens left in its guaranteed bucket, today's quota count, its live concurrency leases and the
     * limits that apply (GET /v1/usage).
     */
    default Decision standing(Tenant tenant) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not report a standing");
    }

    /** Frees the concurrency lease of a job that became terminal (idempotent). */
    void release(String tenant, String jobId);
}
