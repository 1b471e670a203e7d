package com.fairpix.ingest.http;

import com.fairpix.core.os.CpuPriority;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admission.FarmShare;
import io.javalin.http.Context;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Serves the uploads of tenants over their share on threads of background CPU priority, so that a
 * flood's request work (reading the body, storing the original, the record, the Kafka send) yields
 * the CPU to the uploads and reads of tenants within their share (issue 31; docs/admission.md,
 * "A flood's requests in the background").
 *
 * <p>Why: requests run on virtual threads, and the JDK schedules those FIFO over one carrier per
 * core, with no priority. Beside a flood, a quiet tenant's upload or poll queued for a carrier
 * behind the flood's uploads and then shared the cores with them at the same nice value. Here a
 * tenant that asked for more than its guarantee at the last refresh ({@link FarmShare#overShare},
 * read from memory, O(1)) has its upload served on one of these platform threads instead, each at
 * nice {@code nice} (Linux's CFS/EEVDF gives a nice-10 thread about a tenth of a nice-0 one's
 * share of a contended core; sched(7)). The worker does the same with its shared processing
 * threads (docs/scheduler.md). An idle machine still serves the flood at full speed: a nice value
 * only matters while something else wants the core.
 *
 * <p>At most {@code maxThreads} threads (started on demand, let go after 30 s idle); an upload
 * beyond them waits in the lane's queue, holding its connection, as it would for a carrier. The
 * node's and the tenant's upload slots ({@link UploadSlots}) bound how many can be in flight.
 */
public final class OverShareLane implements AutoCloseable {
    private final FarmShare share;
    private final ThreadPoolExecutor threads;
    private final Counter laned;

    /**
     * @param share      whose {@link FarmShare#overShare} picks the tenants served here
     * @param nice       the threads' nice value, 1..19; 0 turns the lane off (every upload is served
     *                   where it arrived)
     * @param maxThreads most threads the lane runs at once (≥ 1)
     * @param registry   where {@code fairpix_ingest_over_share_uploads_total} is counted
     * @throws IllegalArgumentException for a nice value outside 0..19 or {@code maxThreads} &lt; 1
     */
    public OverShareLane(FarmShare share, int nice, int maxThreads, MeterRegistry registry) {
        if (nice < 0 || nice > 19) throw new IllegalArgumentException("nice must be 0..19, got " + nice);
        if (maxThreads < 1) throw new IllegalArgumentException("maxThreads must be >= 1, got " + maxThreads);
        this.share = share;
        this.laned = Counter.builder(com.fairpix.core.metrics.MetricNames.INGEST_OVER_SHARE_UPLOADS)
                .description("uploads served on background-priority threads because their tenant asked for more than its guarantee")
                .register(registry);
        if (nice == 0) {
            this.threads = null;
            return;
        }
        AtomicInteger n = new AtomicInteger();
        this.threads = new ThreadPoolExecutor(maxThreads, maxThreads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> Thread.ofPlatform().daemon().name("fairpix-over-share-" + n.incrementAndGet()).unstarted(() -> {
                    CpuPriority.lowerCurrentThread(nice);
                    r.run();
                }));
        threads.allowCoreThreadTimeOut(true);
    }

    /** Whether {@code tenant}'s uploads go to the lane now. */
    public boolean serves(Tenant tenant) {
        return threads != null && share.overShare(tenant.pool(), tenant.id());
    }

    /**
     * Runs {@code upload} for {@code tenant}: on a lane thread (the request made asynchronous, its
     * answer or exception handled as if thrown here) when the tenant is over its share, else on
     * the calling thread.
     */
    public void serve(Context ctx, Tenant tenant, Runnable upload) {
        if (!serves(tenant)) {
            upload.run();
            return;
        }
        laned.increment();
        ctx.async(config -> config.executor = threads, upload::run);
    }

    @Override
    public void close() {
        if (threads != null) threads.shutdownNow();
    }
}
