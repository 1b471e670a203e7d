package com.fairpix.ingest.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fairpix.core.os.CpuPriority;
import com.fairpix.core.tenant.Tenant;
import com.fairpix.ingest.admission.AdmissionContract;
import com.fairpix.ingest.admission.FarmShare;
import io.javalin.Javalin;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Uploads of a tenant over its share are served on background-priority threads, the others where they arrive, answers and errors alike. */
class OverShareLaneTest {
    private static final Tenant FLOOD = AdmissionContract.tenant("flood", 200, 400);
    private static final Tenant QUIET = AdmissionContract.tenant("quiet", 10, 20);
    /** A share that says the flood is over its share. */
    private static final FarmShare FLOOD_OVER = new FarmShare() {
        @Override
        public Share of(String pool) { return Share.NONE; }

        @Override
        public boolean overShare(String pool, String tenant) { return tenant.equals(FLOOD.id()); }
    };

    private Javalin app;
    private OverShareLane lane;

    @AfterEach
    void stop() {
        if (app != null) app.stop();
        if (lane != null) lane.close();
    }

    /** A server whose one route serves tenant {@code ?t=} through the lane and answers with where it ran: thread name, virtual, nice. */
    private int serve(OverShareLane lane) {
        Map<String, Tenant> tenants = Map.of(FLOOD.id(), FLOOD, QUIET.id(), QUIET);
        app = Javalin.create(c -> c.useVirtualThreads = true)
                .post("/up", ctx -> lane.serve(ctx, tenants.get(ctx.queryParam("t")), () -> {
                    if (ctx.queryParam("fail") != null) throw new IllegalStateException("refused");
                    Thread t = Thread.currentThread();
                    ctx.status(202).result(t.getName() + "|" + t.isVirtual() + "|" + CpuPriority.currentThreadNice() + "|" + ctx.body().length());
                }))
                .exception(IllegalStateException.class, (e, ctx) -> ctx.status(429).result("problem: " + e.getMessage()))
                .start("127.0.0.1", 0);
        return app.port();
    }

    private static HttpResponse<String> post(int port, String query) throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/up?" + query))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[100_000])).build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    @Test
    void aTenantOverItsShareIsServedOnABackgroundThreadAndTheOthersWhereTheyArrive() throws Exception {
        assumeTrue(CpuPriority.currentThreadNice() != null && CpuPriority.currentThreadNice() < 10, "Linux /proc, a test below nice 10");
        lane = new OverShareLane(FLOOD_OVER, 10, 4, new SimpleMeterRegistry());
        int port = serve(lane);

        HttpResponse<String> flood = post(port, "t=flood");
        assertThat(flood.statusCode()).isEqualTo(202);
        String[] at = flood.body().split("\\|");
        assertThat(at[0]).startsWith("fairpix-over-share-");
        assertThat(at[1]).as("a platform thread").isEqualTo("false");
        assertThat(at[2]).as("its nice value").isEqualTo("10");
        assertThat(at[3]).as("the whole body read on that thread").isEqualTo("100000");

        HttpResponse<String> quiet = post(port, "t=quiet");
        assertThat(quiet.statusCode()).isEqualTo(202);
        assertThat(quiet.body().split("\\|")[1]).as("the request's own virtual thread").isEqualTo("true");
        assertThat(lane.serves(QUIET)).isFalse();
    }

    @Test
    void anExceptionOnTheLaneIsAnsweredByTheServersExceptionHandlerAsOnTheRequestThread() throws Exception {
        lane = new OverShareLane(FLOOD_OVER, 10, 1, new SimpleMeterRegistry());
        int port = serve(lane);
        for (String tenant : Set.of("flood", "quiet")) {
            HttpResponse<String> r = post(port, "t=" + tenant + "&fail=1");
            assertThat(r.statusCode()).as(tenant).isEqualTo(429);
            assertThat(r.body()).as(tenant).isEqualTo("problem: refused");
        }
        // One lane thread: the next flood upload still goes through after a failed one.
        assertThat(post(port, "t=flood").statusCode()).isEqualTo(202);
    }

    @Test
    void niceZeroTurnsTheLaneOff() throws Exception {
        lane = new OverShareLane(FLOOD_OVER, 0, 4, new SimpleMeterRegistry());
        assertThat(lane.serves(FLOOD)).isFalse();
        HttpResponse<String> flood = post(serve(lane), "t=flood");
        assertThat(flood.body().split("\\|")[1]).isEqualTo("true");
        assertThatThrownBy(() -> new OverShareLane(FLOOD_OVER, 20, 4, new SimpleMeterRegistry())).isInstanceOf(IllegalArgumentException.class);
    }
}
