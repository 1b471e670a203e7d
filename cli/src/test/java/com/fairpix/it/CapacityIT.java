package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.Corpus;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The farm measures its own capacity: a worker replica publishes the cost units per second it
 * completes while busy, and the ingest's status (GET /admin/v1/status, {@code fairpix status})
 * shows the pool's sum. Checked against what the worker really did: one tenant's backlog of real
 * photos, drained by one worker with default settings; the cost units of the jobs it finished in
 * the steady part of the drain, per second, against the figure the status shows right after.
 */
class CapacityIT {
    static final String SPEC = "{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"webp\",\"quality\":75}]}}";
    static final int JOBS = 160;

    @Test
    void theMeasuredCapacityIsWithin25PercentOfWhatTheWorkerAchieved() throws Exception {
        // As shipped: capacity measured (and shown as what guarantees are scaled to).
        FairpixConfig config = Farm.withoutReadBudget(Farm.shippedDefaults());
        // The photo's cost with default settings (a 2048x1536 JPEG to a 256 px WebP).
        byte[] photo = Files.readAllBytes(Corpus.required("cameratrap-photos/american_black_bear.jpg"));
        double cost = Farm.cost(config, photo, SPEC);
        // Replicas of earlier tests that were killed, not stopped, count for up to 30 s: start from none.
        try (var redis = com.fairpix.core.redis.Redis.connect(config.get(Setting.REDIS_URL))) {
            redis.del(com.fairpix.core.redis.RedisKeys.capacity("cpu"));
        }
        // Jobs other tests left in the cpu queue would share the worker with this drain (the measured
        // capacity counts all it does, the drain only this tenant's): drain them first.
        Farm.drainCpuQueue(Farm.config());
        try (IngestApi ingest = IngestApi.start(config)) {
            Farm.Client client = new Farm.Client(ingest.port());
            String tenant = Farm.tenantId("it-capacity");
            String key = client.createTenant(tenant, Map.of("rate", 10_000, "burst", 100_000, "maxConcurrentJobs", 10_000));
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                HttpResponse<String> r = client.submitRaw(key, photo, "image/jpeg", SPEC);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                ids.add(Json.mapper().readTree(r.body()).get("id").asText());
            }
            Worker worker = Worker.start(config.with(Setting.WORKER_PORT, "0"), 0);
            List<Instant> finished = new ArrayList<>();
            try {
                for (String id : ids) {
                    JsonNode job = client.awaitTerminal(key, id, Duration.ofSeconds(180));
                    assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("DONE");
                    finished.add(Instant.parse(job.get("finishedAt").asText()));
                }
                // The worker publishes every 5 s: wait for a figure taken after the drain's end.
                Thread.sleep(6_000);
                JsonNode status = Farm.adminStatus(ingest.port());
                JsonNode cpu = status.path("capacity").path("cpu");
                Collections.sort(finished);
                // Steady part: jobs JOBS/4 .. 3·JOBS/4 (the first ones warm the JVM up, the last ones drain a
                // thinning queue).
                int from = JOBS / 4;
                int to = 3 * JOBS / 4;
                double seconds = Duration.between(finished.get(from), finished.get(to)).toMillis() / 1000.0;
                double achieved = (to - from) * cost / seconds;
                double measured = cpu.path("costPerSecond").asDouble();
                StringWriter printed = new StringWriter();
                com.fairpix.cli.StatusCommand.print(new PrintWriter(printed, true), status);
                System.out.printf("[CapacityIT] drained %d jobs of %.2f cost units each: achieved %.1f cost units/s (%.1f jobs/s) over jobs %d-%d; "
                                + "measured capacity %.1f cost units/s from %d replica(s): ratio %.2f%n%s",
                        JOBS, cost, achieved, achieved / cost, from, to, measured, cpu.path("replicas").asInt(), measured / achieved, printed);
                assertThat(cpu.path("replicas").asInt()).isEqualTo(1);
                assertThat(cpu.path("admissionCapacity").asDouble()).as("admission hands out the measured capacity × the headroom")
                        .isCloseTo(measured * config.decimal(Setting.ADMISSION_CAPACITY_HEADROOM), org.assertj.core.api.Assertions.within(1e-6));
                assertThat(measured / achieved).as("measured ÷ achieved capacity").isBetween(0.75, 1.25);
                assertThat(printed.toString()).contains("MEASURED CAPACITY").containsPattern("cpu\\s+\\d+\\.\\d from \\d+ replica");
                // Overcommit: this tenant alone guarantees 10,000 tokens/s, far above what one worker does.
                assertThat(cpu.path("guarantees").asDouble()).isGreaterThanOrEqualTo(10_000);
                assertThat(cpu.path("overcommit").asDouble()).isCloseTo(cpu.path("guarantees").asDouble() / measured, org.assertj.core.api.Assertions.within(1e-6))
                        .isGreaterThan(1);
                assertThat(printed.toString()).contains("guarantees exceed capacity");
                // ... and the CLI says so when a guarantee changes.
                picocli.CommandLine cl = com.fairpix.cli.Fairpix.commandLine();
                StringWriter err = new StringWriter();
                cl.setErr(new PrintWriter(err, true));
                cl.setOut(new PrintWriter(new StringWriter(), true));
                int code = cl.execute("tenants", "set", tenant, "--rate", "10001", "--url", "http://127.0.0.1:" + ingest.port(), "--admin-token", Farm.ADMIN_TOKEN);
                assertThat(code).as(err.toString()).isZero();
                assertThat(err.toString()).contains("warning: pool cpu's guarantees would add up to")
                        .contains("this tenant's rate 10000.0 -> 10001.0").contains("more than it does")
                        .contains("shares the pool by demand (weighted max-min");
            } finally {
                worker.stop(Duration.ofSeconds(10));
            }
            // A stopped worker withdraws its figure (the status shows it at the next refresh, every 2 s).
            long deadline = System.nanoTime() + 3 * com.fairpix.ingest.capacity.FarmCapacity.REFRESH.toNanos();
            int replicas;
            do {
                Thread.sleep(200);
                replicas = Farm.adminStatus(ingest.port()).path("capacity").path("cpu").path("replicas").asInt();
            } while (replicas != 0 && System.nanoTime() < deadline);
            assertThat(replicas).isZero();
        }
    }
}
