package com.fairpix.ingest.http;

import com.fairpix.core.http.ApiProblem;
import com.fairpix.core.config.Setting;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Caps the uploads one ingest node reads at once: in all, and per tenant, so that one tenant's
 * slow or huge uploads hold at most its own share of the node's connections, disk and buffers.
 * Per-tenant counters exist only while the tenant has an upload in flight (memory is bounded by
 * the uploads, not the tenants).
 */
public final class UploadSlots {
    private final Semaphore node;
    private final int perTenant;
    private final ConcurrentHashMap<String, AtomicInteger> tenants = new ConcurrentHashMap<>();

    /**
     * @param nodeLimit   {@code ingest.max-uploads-in-flight}
     * @param tenantLimit {@code ingest.max-tenant-uploads-in-flight}
     */
    public UploadSlots(int nodeLimit, int tenantLimit) {
        if (nodeLimit < 1 || tenantLimit < 1) throw new IllegalArgumentException("upload limits must be >= 1");
        this.node = new Semaphore(nodeLimit);
        this.perTenant = tenantLimit;
    }

    /** One upload's slot; close it when the upload is answered. */
    public interface Slot extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Takes a slot without waiting.
     *
     * @throws ApiProblem 429 {@code too-many-uploads} when the tenant has its limit in flight on
     *                    this node; 503 {@code overloaded} (reason {@code uploads-in-flight}) when the node has
     */
    public Slot acquire(String tenant) {
        AtomicInteger[] mine = new AtomicInteger[1];
        boolean[] ok = new boolean[1];
        tenants.compute(tenant, (k, v) -> {
            AtomicInteger c = v == null ? new AtomicInteger() : v;
            ok[0] = c.get() < perTenant;
            if (ok[0]) c.incrementAndGet();
            mine[0] = c;
            return c.get() == 0 ? null : c;
        });
        if (!ok[0]) {
            throw new ApiProblem(429, "too-many-uploads", "Too many uploads in flight",
                    "Tenant '" + tenant + "' already has " + perTenant + " uploads in flight on this node ("
                            + Setting.INGEST_MAX_TENANT_UPLOADS_IN_FLIGHT.key() + "); send the next when one is answered.")
                    .with("limit", perTenant).header("Retry-After", "1")
                    // The body is not read: close rather than read and drop it to keep the connection.
                    .header("Connection", "close");
        }
        if (!node.tryAcquire()) {
            release(tenant);
            throw ApiProblem.overloaded("uploads-in-flight", "This node is reading as many uploads as it may ("
                    + Setting.INGEST_MAX_UPLOADS_IN_FLIGHT.key() + "); try again shortly.", 1).header("Connection", "close");
        }
        boolean[] closed = new boolean[1];
        return () -> {
            synchronized (closed) {
                if (closed[0]) return;
                closed[0] = true;
            }
            node.release();
            release(tenant);
        };
    }

    private void release(String tenant) {
        tenants.computeIfPresent(tenant, (k, c) -> c.decrementAndGet() <= 0 ? null : c);
    }

    /** Uploads in flight of {@code tenant} on this node (tests, metrics). */
    public int inFlight(String tenant) {
        AtomicInteger c = tenants.get(tenant);
        return c == null ? 0 : c.get();
    }

    /** Tenants with an upload in flight (tests: the map empties). */
    int tenantsTracked() {
        return tenants.size();
    }
}
