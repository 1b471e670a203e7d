package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The farm protects itself as shipped (issue #16, Done when 1 and 2): no capacity configured, the
 * shipped defaults for borrowing, guarantee scaling and backlog shedding. One ingest node and one
 * worker (default threads) on this machine; a flooding tenant guaranteed 1,000 tokens/s, several
 * times what the worker does (about 200 tokens/s here, as charged), sending 12.6 MP images with two
 * variants each ({@link #FLOOD_SPEC}; smooth images, so small uploads), and a
 * second tenant B guaranteed 50 tokens/s that sends one small job a second throughout.
 *
 * <p>First 10 s of B alone (the worker measures itself), then 60 s of flood: eight connections of
 * the flooder each send the next image as soon as the last one is answered, and wait what
 * {@code Retry-After} says when refused (a standard client; a client that ignores it is the
 * refusal budget's, HostileSustainedIT). Checked: the pool's backlog (queue seconds, as ingest
 * computes it) stays under the soft bound plus {@link #MARGIN_SECONDS}; the flooder gets 429/503,
 * each with {@code Retry-After}; B, within its scaled guarantee, is never refused; the capacity
 * the status shows at the end of the flood is within 25 % of what the worker achieved in the
 * flood's last 40 s, both in the tokens tenants are charged (estimate plus true-up: the flood's
 * jobs measure about 1.8 × their estimate, docs/overload.md "Measured capacity").
 *
 * <p>The tenants of earlier tests stop counting (their active-set entries are removed), so the
 * farm has these two tenants; jobs earlier tests left queued are drained first.
 */
class FloodIT {
    static final String SPEC = "{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"webp\",\"quality\":75}]}}";
    static final Duration WARM_UP = Duration.ofSeconds(10);
    /**
     * 60 s: with the capacity counted in charged tokens the figure settles within the flood's first
     * 20 s (ci-run20: 212 at 20 s, 199-205 after); the flood was 90 s while the figure, in estimated
     * tokens, fed the worker less than it did and read high against it.
     */
    static final Duration FLOOD = Duration.ofSeconds(60);
    /** Steady part of the flood over which the worker's throughput is taken: its last 40 s. */
    static final Duration STEADY = Duration.ofSeconds(40);
    /**
     * Above the soft bound the backlog may go by: the flooder's burst (1,000 tokens, a few seconds
     * of this worker's time) admitted at once, plus what the measured capacity's lag lets in while the
     * mix changes from B's small jobs to the flood's (the figure follows the last ~30 saturated seconds)
     * and the 1 s backlog reading, before borrowed traffic is shed.
     */
    static final double MARGIN_SECONDS = 40;
    /** The flooder's concurrent uploads: as many as one tenant may have in flight on a node ({@code ingest.max-tenant-uploads-in-flight}). */
    static final int FLOOD_CONNECTIONS = 8;
    /**
     * The flooder's spec: a blur of the full 12.6 MP image before its resize, and a thumbnail. Heavier
     * for the worker than its cost says (the cost model counts megapixels per variant, not
     * operations), as real floods often are; so this machine's ingest, which shares the two cores
     * with the worker, can offer at least twice what the worker does (asserted: a flood that does not
     * flood proves nothing). The true-up charges the flooder what its jobs really cost, and the
     * measured capacity counts the same tokens.
     */
    static final String FLOOD_SPEC = "{\"variants\":{"
            + "\"soft\":[{\"op\":\"blur\",\"sigma\":3},{\"op\":\"resize\",\"width\":1024,\"height\":1024,\"fit\":\"contain\"},{\"op\":\"encode\",\"format\":\"jpeg\",\"quality\":80}],"
            + "\"thumb\":[{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"webp\",\"quality\":75}]}}";
    static final int FLOOD_WIDTH = 4096;
    static final int FLOOD_HEIGHT = 3072;

    record Sent(String tenant, int status, String retryAfter, String reason, String id, Instant at) {}

    @Test
    void withDefaultSettingsAFloodAboveTheFarmsThroughputIsHeldNearTheBacklogBoundAndAGuaranteedTenantIsNeverRefused() throws Exception {
        // Its checks read each of the flood's jobs: the read budget is not what it tests.
        FairpixConfig config = Farm.withoutReadBudget(Farm.shippedDefaults());
        assertThat(config.get(Setting.ADMISSION_FARM_CAPACITY)).as("this test runs the shipped defaults").isEqualTo("measured");
        double soft = config.decimal(Setting.BACKLOG_SOFT_SECONDS);
        assertThat(soft).isPositive();
        assertThat(config.decimal(Setting.BACKLOG_HARD_SECONDS)).isGreaterThan(soft);
        Farm.drainCpuQueue(Farm.config());
        try (var redis = com.fairpix.core.redis.Redis.connect(config.get(Setting.REDIS_URL))) {
            // Killed replicas of earlier tests count for 30 s, and their tenants for 120 s: start from none.
            redis.del(RedisKeys.capacity("cpu"), RedisKeys.activeTenants("cpu"));
        }
        byte[] photo = smoothJpeg(FLOOD_WIDTH, FLOOD_HEIGHT);
        byte[] small = Farm.smallJpeg(640, 480, 7);
        // What admission charges each (the shipped cost model; the flood's blur is trued up after its jobs).
        double floodCost = Farm.cost(config, photo, FLOOD_SPEC);
        double smallCost = Farm.cost(config, small, SPEC);
        try (IngestApi ingest = IngestApi.start(config)) {
            Farm.Client client = new Farm.Client(ingest.port());
            String flooder = Farm.tenantId("it-flood");
            String flooderKey = client.createTenant(flooder, Map.of("rate", 1000, "burst", 1000, "maxConcurrentJobs", 100_000, "dailyQuota", 10_000_000));
            String b = Farm.tenantId("it-flood-b");
            String bKey = client.createTenant(b, Map.of("rate", 50, "burst", 100));
            Worker worker = Worker.start(config.with(Setting.WORKER_PORT, "0"), 0);
            List<Sent> sent = new CopyOnWriteArrayList<>();
            List<String> samples = new CopyOnWriteArrayList<>();
            Map<String, Double> maxBacklog = new ConcurrentHashMap<>();
            AtomicBoolean bRuns = new AtomicBoolean(true);
            AtomicBoolean flooding = new AtomicBoolean(false);
            ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
            try {
                pool.submit(() -> {
                    while (bRuns.get()) {
                        long next = System.nanoTime() + 1_000_000_000L;
                        sent.add(submit(client, b, bKey, small, SPEC));
                        sleepUntil(next);
                    }
                    return null;
                });
                Thread.sleep(WARM_UP.toMillis());
                JsonNode warm = Farm.adminStatus(ingest.port());
                samples.add(sample(0, warm));
                Instant floodStart = Instant.now();
                flooding.set(true);
                for (int c = 0; c < FLOOD_CONNECTIONS; c++) {
                    pool.submit(() -> {
                        while (flooding.get()) {
                            Sent s = submit(client, flooder, flooderKey, photo, FLOOD_SPEC);
                            sent.add(s);
                            if (s.status() != 202) {
                                long wait = s.retryAfter() == null ? 1 : Long.parseLong(s.retryAfter());
                                sleepUntil(Math.min(System.nanoTime() + wait * 1_000_000_000L, deadline(floodStart)));
                            }
                        }
                        return null;
                    });
                }
                JsonNode status = warm;
                while (Instant.now().isBefore(floodStart.plus(FLOOD))) {
                    Thread.sleep(1_000);
                    status = Farm.adminStatus(ingest.port());
                    double backlog = backlogHere(status);
                    maxBacklog.merge("cpu", backlog, Math::max);
                    long t = Duration.between(floodStart, Instant.now()).toSeconds();
                    if (t % 10 == 0) samples.add(sample(t, status));
                }
                flooding.set(false);
                JsonNode end = Farm.adminStatus(ingest.port());
                double backlogAtEnd = backlogHere(end);
                maxBacklog.merge("cpu", backlogAtEnd, Math::max);
                samples.add(sample(FLOOD.toSeconds(), end));
                Instant floodEnd = Instant.now();
                bRuns.set(false);
                pool.shutdown();
                assertThat(pool.awaitTermination(70, TimeUnit.SECONDS)).as("clients stopped").isTrue();

                // Throughput the worker achieved in the flood's steady part, from the jobs' own finish times.
                Instant from = floodEnd.minus(STEADY);
                double done = 0;
                int jobsDone = 0;
                List<Double> floodCharged = new ArrayList<>();
                List<Double> bWaits = new ArrayList<>();
                for (Sent s : sent) {
                    if (s.status() != 202) continue;
                    JsonNode job = client.awaitTerminal(s.tenant().equals(b) ? bKey : flooderKey, s.id(), Duration.ofSeconds(240));
                    assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("DONE");
                    Instant finished = Instant.parse(job.get("finishedAt").asText());
                    if (!finished.isBefore(from) && finished.isBefore(floodEnd)) {
                        double charged = charged(s.tenant().equals(b) ? smallCost : floodCost, job);
                        done += charged;
                        if (!s.tenant().equals(b)) floodCharged.add(charged);
                        jobsDone++;
                    }
                    if (s.tenant().equals(b) && job.hasNonNull("startedAt")) {
                        bWaits.add(Duration.between(Instant.parse(job.get("createdAt").asText()), Instant.parse(job.get("startedAt").asText())).toMillis() / 1000.0);
                    }
                }
                double achieved = done / STEADY.toSeconds();
                JsonNode cpu = end.path("capacity").path("cpu");
                double measured = cpu.path("costPerSecond").asDouble();
                double scale = cpu.path("guaranteeScale").asDouble();

                List<Sent> floods = sent.stream().filter(s -> s.tenant().equals(flooder)).toList();
                // In the tokens a flood job is charged (its estimate and its true-up), the units of what the worker achieved.
                double floodJobCharged = floodCharged.stream().mapToDouble(x -> x).average().orElse(floodCost);
                double offered = floods.size() * floodJobCharged / FLOOD.toSeconds();
                List<Sent> bs = sent.stream().filter(s -> s.tenant().equals(b)).toList();
                List<Sent> failed = floods.stream().filter(s -> s.status() < 0).toList();
                List<Sent> refused = floods.stream().filter(s -> s.status() != 202 && s.status() >= 0).toList();
                Map<String, Long> reasons = new java.util.TreeMap<>();
                for (Sent s : refused) reasons.merge(s.status() + " " + s.reason(), 1L, Long::sum);
                long admitted = floods.size() - refused.size();
                StringWriter printed = new StringWriter();
                com.fairpix.cli.StatusCommand.print(new PrintWriter(printed, true), end);
                Collections.sort(bWaits);
                System.out.printf("[FloodIT] flood of %d s by %s (guarantee 1000 tokens/s, %d connections): %d requests (%.1f tokens/s offered, as charged), %d admitted (%.1f tokens/s), refused %s%n"
                                + "[FloodIT] B (guarantee 50 tokens/s, scaled x%.4f = %.2f tokens/s; sends %.1f tokens/s): %d requests, %d refused; queue wait p50 %.2f s, max %.2f s%n"
                                + "[FloodIT] backlog of pool cpu: max %.1f s (soft bound %.0f s + margin %.0f s), %.1f s at the flood's end%n"
                                + "[FloodIT] worker achieved %.2f tokens/s charged (%d jobs finished in the flood's last %d s; a flood job charged %.1f tokens on average, %.1f at admission); status measured %.2f: ratio %.2f%n"
                                + "[FloodIT] samples (t s | backlog s | shedding | measured | admits | guarantees | scale):%n%s%n%s",
                        FLOOD.toSeconds(), flooder, FLOOD_CONNECTIONS, floods.size(), offered, admitted, admitted * floodJobCharged / FLOOD.toSeconds(), reasons,
                        scale, 50 * scale, smallCost, bs.size(), bs.stream().filter(s -> s.status() != 202).count(),
                        bWaits.isEmpty() ? Double.NaN : bWaits.get(bWaits.size() / 2), bWaits.isEmpty() ? Double.NaN : bWaits.get(bWaits.size() - 1),
                        maxBacklog.get("cpu"), soft, MARGIN_SECONDS, backlogAtEnd, achieved, jobsDone, STEADY.toSeconds(),
                        floodJobCharged, floodCost, measured, measured / achieved,
                        String.join("\n", samples), printed);

                assertThat(offered).as("the premise: the flood offers at least twice what the worker achieved").isGreaterThanOrEqualTo(2 * achieved);
                assertThat(bs).as("B sent through the whole test, one a second").hasSizeGreaterThan((int) (WARM_UP.plus(FLOOD).toSeconds() * 9 / 10));
                assertThat(bs).as("B, within its scaled guarantee, is never refused").allMatch(s -> s.status() == 202, "answered 202");
                assertThat(50 * scale).as("B's scaled guarantee covers what B sends (the premise)").isGreaterThanOrEqualTo(smallCost);
                assertThat(refused).as("the flooder is pushed back").isNotEmpty();
                assertThat(failed.size()).as("flood requests that got no answer (%s)", failed.stream().map(Sent::reason).distinct().toList())
                        .isLessThanOrEqualTo(floods.size() / 100);
                assertThat(refused).as("every refusal is a 429 or a 503 with Retry-After")
                        .allMatch(s -> (s.status() == 429 || s.status() == 503) && s.retryAfter() != null && Long.parseLong(s.retryAfter()) >= 1, "429/503 with Retry-After");
                double admits = cpu.path("admissionCapacity").asDouble();
                assertThat(admitted * floodJobCharged).as("the flooder, guaranteed 1,000 tokens/s, is held to about the capacity (%.1f tokens/s) plus its burst", admits)
                        .isLessThanOrEqualTo(1.25 * admits * FLOOD.toSeconds() + 1000);
                assertThat(maxBacklog.get("cpu")).as("the backlog stays under the soft bound plus the margin").isLessThanOrEqualTo(soft + MARGIN_SECONDS);
                assertThat(measured / achieved).as("measured capacity ÷ what the worker achieved").isBetween(0.75, 1.25);
            } finally {
                flooding.set(false);
                bRuns.set(false);
                pool.shutdownNow();
                // Leave the queue empty for the next test.
                try (var lag = com.fairpix.autoscaler.signal.Signals.kafkaLag(config.get(Setting.KAFKA_BOOTSTRAP), Duration.ofSeconds(10))) {
                    long deadline = System.nanoTime() + 180_000_000_000L;
                    while (Farm.cpuLag(lag) > 0 && System.nanoTime() < deadline) Thread.sleep(500);
                }
                worker.stop(Duration.ofSeconds(10));
            }
        }
    }

    /** A {@code width} × {@code height} JPEG of smooth colour fields (a coarse random grid, upscaled): a full-size decode from a few hundred kB. */
    static byte[] smoothJpeg(int width, int height) {
        com.fairpix.worker.process.OpenCv.ensureLoaded();
        org.opencv.core.Mat coarse = new org.opencv.core.Mat(height / 64, width / 64, org.opencv.core.CvType.CV_8UC3);
        org.opencv.core.Core.randu(coarse, 0, 255);
        org.opencv.core.Mat m = new org.opencv.core.Mat();
        org.opencv.imgproc.Imgproc.resize(coarse, m, new org.opencv.core.Size(width, height), 0, 0, org.opencv.imgproc.Imgproc.INTER_CUBIC);
        org.opencv.core.MatOfByte out = new org.opencv.core.MatOfByte();
        // Held to the end, not made inline: OpenCV's Java wrapper reads its native address and the
        // object is then unreachable during the native call, so its finalizer could free it under the
        // encoder (twice this test's JVM aborted here on a corrupted malloc heap; cause not proven).
        org.opencv.core.MatOfInt params = new org.opencv.core.MatOfInt(org.opencv.imgcodecs.Imgcodecs.IMWRITE_JPEG_QUALITY, 60);
        try {
            org.opencv.imgcodecs.Imgcodecs.imencode(".jpg", m, out, params);
            return out.toArray();
        } finally {
            coarse.release();
            m.release();
            out.release();
            params.release();
        }
    }

    /**
     * What the tenant is charged for a finished job, tokens: the estimate admission took, plus what
     * the worker's true-up added for CPU measured past it (the units of the measured capacity).
     */
    private static double charged(double estimate, JsonNode job) {
        JsonNode cpu = job.path("usage").path("cpuMillis");
        return cpu.isNumber() ? estimate + com.fairpix.core.admission.TrueUp.owed(estimate, cpu.asDouble() / com.fairpix.core.job.JobCost.MS_PER_TOKEN) : estimate;
    }

    private static long deadline(Instant floodStart) {
        return System.nanoTime() + Math.max(0, Duration.between(Instant.now(), floodStart.plus(FLOOD)).toNanos());
    }

    /** The cpu pool's backlog as the node that answered reads it (the status lists every registered node). */
    private static double backlogHere(JsonNode status) {
        for (JsonNode n : status.path("nodes")) {
            if (n.path("node").asText().equals(status.path("node").asText())) return n.path("backlogSeconds").path("cpu").asDouble();
        }
        throw new AssertionError("the answering node is not in its own status: " + status);
    }

    private static String sample(long t, JsonNode status) {
        JsonNode cpu = status.path("capacity").path("cpu");
        return String.format(java.util.Locale.ROOT, "  %3d | %6.1f | %s | %6.2f | %6.2f | %6.1f | %.4f", t,
                backlogHere(status), status.path("farm").path("shedding").path("cpu").asText("-"),
                cpu.path("costPerSecond").asDouble(), cpu.path("admissionCapacity").asDouble(), cpu.path("guarantees").asDouble(),
                cpu.path("guaranteeScale").asDouble());
    }

    private static Sent submit(Farm.Client client, String tenant, String key, byte[] image, String spec) {
        try {
            HttpResponse<String> r = client.submitRaw(key, image, "image/jpeg", spec);
            String id = null;
            String reason = null;
            JsonNode body = r.body().isEmpty() ? null : Json.mapper().readTree(r.body());
            if (r.statusCode() == 202) {
                id = body.get("id").asText();
            } else if (body != null) {
                String type = body.path("type").asText();
                reason = type.substring(type.lastIndexOf('/') + 1);
            }
            return new Sent(tenant, r.statusCode(), r.headers().firstValue("Retry-After").orElse(null), reason, id, Instant.now());
        } catch (Exception e) {
            return new Sent(tenant, -1, null, e.getClass().getSimpleName(), null, Instant.now());
        }
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long wait = nanoTime - System.nanoTime();
        if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
    }
}
