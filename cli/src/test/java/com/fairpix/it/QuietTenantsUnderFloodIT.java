package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.Corpus;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, Done-when 1, with the shipped defaults ({@code admission.guarantee-sharing=max-min},
 * measured capacity): a tenant created with {@code rate 200, burst 400} floods above the farm's
 * capacity (eight connections, each honouring {@code Retry-After}); four tenants with the default
 * rate (10 tokens/s) each send one 2048×1536 camera-trap photo a second for a 256 px thumbnail
 * (3.15 tokens, about a third of their rate): a phase alone, then the same phase under the flood.
 * One ingest node and one worker in this JVM.
 *
 * <p>Checked: no quiet tenant is refused, alone or under the flood; the flooder is admitted at least
 * 80 % of what the quiet tenants leave of the capacity admission hands out (work-conserving); with
 * the 60 s phases, each quiet tenant's p99 submit → done under the flood is within 1.5× its
 * p99 alone (printed, not asserted, with shorter phases: 30 jobs make the p99 the single slowest job).
 *
 * <p>Before the first phase the farm is warmed: ten quiet jobs, then, where the p99 is asserted, a 15 s
 * flood of a tenant of its own, drained (it is there for the latency figure; shorter phases print it
 * only, and the suite's run saves the flood and its drain). Each tenant has an HTTP client of its own. Printed too: every stage of the quiet jobs' submit →
 * done (admit, store, wait, run; see {@link #STAGES}) alone and under the flood, and the slowest jobs
 * stage by stage (docs/scheduler.md, "Where a quiet job's time goes under a flood").
 *
 * <p>Each phase lasts {@code FAIRPIX_IT_QUIET_SECONDS} seconds (default 30, to keep the suite's time;
 * the 60 s figures, latency bound included, come from a run with {@code FAIRPIX_IT_QUIET_SECONDS=60}).
 */
class QuietTenantsUnderFloodIT {
    static final String SPEC = "{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"webp\",\"quality\":80}]}}";
    static final int QUIET = 4;
    static final int FLOOD_CONNECTIONS = 8;
    /** Phases at least this long (the issue's) hold each quiet tenant's p99 under the flood to 1.5× its p99 alone; shorter ones print it. */
    static final int P99_MIN_SECONDS = 60;
    /** The flood's first seconds, left out of the work-conserving figure: the worker measures itself first. */
    static final int SETTLE_SECONDS = 10;
    /** The warm-up flood before the first phase. */
    static final int WARM_FLOOD_SECONDS = 15;

    record Sent(String tenant, int phase, int status, String retryAfter, String id, Instant at, Instant answered) {}

    /**
     * Where a quiet job's submit → done went, in seconds, from its job record and the client's two
     * instants: {@code admit} send → createdAt (the request, the upload read, admission), {@code store}
     * createdAt → queuedAt (the original to S3, the record to Redis; queuedAt is the Kafka record's
     * timestamp, whole ms), {@code wait} queuedAt → startedAt (the broker, the worker's fetch, the
     * scheduler), {@code run} startedAt → finishedAt (the original read, the image work, the results'
     * writes, DONE), and {@code answer} queuedAt → the 202 at the client (the broker's ack, the response).
     */
    static final String[] STAGES = {"admit", "store", "wait", "run", "answer"};

    static double[] stages(Sent s, JsonNode job) {
        Instant created = Instant.parse(job.get("createdAt").asText());
        Instant queued = Instant.parse(job.get("queuedAt").asText());
        Instant started = Instant.parse(job.get("startedAt").asText());
        Instant finished = Instant.parse(job.get("finishedAt").asText());
        return new double[] {secs(s.at(), created), secs(created, queued), secs(queued, started), secs(started, finished), secs(queued, s.answered())};
    }

    private static double secs(Instant from, Instant to) {
        return Duration.between(from, to).toNanos() / 1e9;
    }

    @Test
    void quietTenantsAtAThirdOfTheirRateAreNeverRefusedBesideARate200FloodAndTheFlooderGetsWhatTheyLeave() throws Exception {
        int seconds = Integer.parseInt(System.getenv().getOrDefault("FAIRPIX_IT_QUIET_SECONDS", "30"));
        FairpixConfig config = Farm.shippedDefaults();
        assertThat(config.get(Setting.ADMISSION_FARM_CAPACITY)).as("shipped defaults").isEqualTo("measured");
        assertThat(config.get(Setting.ADMISSION_GUARANTEE_SHARING)).as("shipped defaults").isEqualTo("max-min");
        Farm.drainCpuQueue(Farm.config());
        try (var redis = com.fairpix.core.redis.Redis.connect(config.get(Setting.REDIS_URL))) {
            redis.del(RedisKeys.capacity("cpu"), RedisKeys.activeTenants("cpu"));
        }
        byte[] photo = Files.readAllBytes(Corpus.required("cameratrap-photos/american_black_bear.jpg"));
        double cost = Farm.cost(config, photo, SPEC);
        try (IngestApi ingest = IngestApi.start(config)) {
            Farm.Client client = new Farm.Client(ingest.port());
            String flooder = Farm.tenantId("it-mm-noisy");
            String flooderKey = client.createTenant(flooder, Map.of("rate", 200, "burst", 400, "maxConcurrentJobs", 100_000, "dailyQuota", 10_000_000));
            String[] quiet = new String[QUIET];
            String[] quietKey = new String[QUIET];
            for (int i = 0; i < QUIET; i++) {
                quiet[i] = Farm.tenantId("it-mm-quiet" + (i + 1));
                // The admin API's defaults (Farm.Client would otherwise give test tenants 10,000 tokens/s).
                quietKey[i] = client.createTenant(quiet[i], Map.of("rate", 10, "burst", 20, "maxConcurrentJobs", 100));
            }
            // Each tenant a client of its own, as tenants are: one HTTP client's connections and selector
            // thread shared by the flood's uploads and the quiet tenants' would queue the quiet ones in the test.
            Farm.Client floodClient = new Farm.Client(ingest.port());
            Farm.Client[] quietClient = new Farm.Client[QUIET];
            for (int i = 0; i < QUIET; i++) quietClient[i] = new Farm.Client(ingest.port());
            Worker worker = Worker.start(config.with(Setting.WORKER_PORT, "0"), 0);
            // Warm-up (JIT, OpenCV, connections) by a tenant of its own, so "alone" is not the cold worker's first jobs.
            String warm = Farm.tenantId("it-mm-warm");
            String warmKey = client.createTenant(warm, Map.of("rate", 10, "burst", 20));
            for (int i = 0; i < 10; i++) {
                Sent w = submit(client, warm, warmKey, photo, 0);
                if (w.id() != null) client.awaitTerminal(warmKey, w.id(), Duration.ofSeconds(60));
            }
            // And a short flood of another tenant's, drained before the first phase: the flood's code paths
            // (refusals, borrowing, the shared threads beside the reserved ones, read-past) are compiled before
            // either phase is measured. Without it the JIT compiled through the flood phase at normal priority
            // (C1+C2 threads 0.4-0.5 of a core of the two, from /proc; 30 s phases), a cold-JVM cost a running farm does not pay.
            if (seconds >= P99_MIN_SECONDS) warmUpFlood(client, Farm.tenantId("it-mm-warm-noisy"), photo, config);
            List<Sent> sent = new CopyOnWriteArrayList<>();
            List<double[]> capacitySamples = new CopyOnWriteArrayList<>();
            AtomicBoolean quietRuns = new AtomicBoolean(true);
            AtomicBoolean flooding = new AtomicBoolean(false);
            int[] phase = {0};
            ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
            Instant aloneStart = Instant.now();
            try {
                for (int i = 0; i < QUIET; i++) {
                    int q = i;
                    pool.submit(() -> {
                        // Staggered by a quarter second, one photo a second each.
                        long next = System.nanoTime() + q * 250_000_000L;
                        while (quietRuns.get()) {
                            sleepUntil(next);
                            next += 1_000_000_000L;
                            sent.add(submit(quietClient[q], quiet[q], quietKey[q], photo, phase[0]));
                        }
                        return null;
                    });
                }
                Thread.sleep(seconds * 1000L);
                phase[0] = 1;
                Instant floodStart = Instant.now();
                flooding.set(true);
                for (int c = 0; c < FLOOD_CONNECTIONS; c++) {
                    pool.submit(() -> {
                        while (flooding.get()) {
                            Sent s = submit(floodClient, flooder, flooderKey, photo, 1);
                            sent.add(s);
                            if (s.status() != 202) {
                                long wait = s.retryAfter() == null ? 1 : Long.parseLong(s.retryAfter());
                                sleepUntil(Math.min(System.nanoTime() + wait * 1_000_000_000L, System.nanoTime()
                                        + Math.max(0, Duration.between(Instant.now(), floodStart.plusSeconds(seconds)).toNanos())));
                            }
                        }
                        return null;
                    });
                }
                JsonNode status = null;
                while (Instant.now().isBefore(floodStart.plusSeconds(seconds))) {
                    Thread.sleep(1000);
                    status = Farm.adminStatus(ingest.port());
                    if (Instant.now().isAfter(floodStart.plusSeconds(SETTLE_SECONDS))) {
                        JsonNode cpu = status.path("capacity").path("cpu");
                        capacitySamples.add(new double[] {cpu.path("admissionCapacity").asDouble(), cpu.path("guaranteeCapacity").asDouble(), cpu.path("guaranteeScale").asDouble()});
                    }
                }
                flooding.set(false);
                quietRuns.set(false);
                Instant floodEnd = Instant.now();
                pool.shutdown();
                assertThat(pool.awaitTermination(70, TimeUnit.SECONDS)).as("clients stopped").isTrue();

                // Submit → done of every quiet job, per tenant and phase.
                StringBuilder table = new StringBuilder();
                table.append(String.format(Locale.ROOT, "[QuietTenantsUnderFloodIT] %d s alone, then %d s under the flood of %s (rate 200, burst 400, %d connections); photo %.2f tokens; p99 ratio %s%n",
                        seconds, seconds, flooder, FLOOD_CONNECTIONS, cost, seconds >= P99_MIN_SECONDS ? "asserted <= 1.5" : "printed only (phases under " + P99_MIN_SECONDS + " s)"));
                table.append("[QuietTenantsUnderFloodIT] | quiet tenant | alone p50 / p99 | under the flood p50 / p99 | p99 ratio | refused alone | refused under the flood |\n");
                List<String> problems = new ArrayList<>();
                List<List<double[]>> breakdown = List.of(new ArrayList<>(), new ArrayList<>());
                List<List<Object[]>> slowest = List.of(new ArrayList<>(), new ArrayList<>());
                for (int i = 0; i < QUIET; i++) {
                    List<Double>[] lat = new List[] {new ArrayList<Double>(), new ArrayList<Double>()};
                    int[] refused = new int[2];
                    for (Sent s : sent) {
                        if (!s.tenant().equals(quiet[i])) continue;
                        if (s.status() != 202) {
                            refused[s.phase()]++;
                            continue;
                        }
                        JsonNode job = client.awaitTerminal(quietKey[i], s.id(), Duration.ofSeconds(240));
                        assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("DONE");
                        double total = Duration.between(s.at(), Instant.parse(job.get("finishedAt").asText())).toMillis() / 1000.0;
                        lat[s.phase()].add(total);
                        double[] st = stages(s, job);
                        breakdown.get(s.phase()).add(st);
                        slowest.get(s.phase()).add(new Object[] {total, "quiet" + (i + 1), st, secs(s.phase() == 0 ? aloneStart : floodStart, s.at())});
                    }
                    Collections.sort(lat[0]);
                    Collections.sort(lat[1]);
                    double ratio = pct(lat[1], 0.99) / pct(lat[0], 0.99);
                    table.append(String.format(Locale.ROOT, "[QuietTenantsUnderFloodIT] | quiet%d | %.3f s / %.3f s | %.3f s / %.3f s | %.2f | %d of %d | %d of %d |%n", i + 1,
                            pct(lat[0], 0.5), pct(lat[0], 0.99), pct(lat[1], 0.5), pct(lat[1], 0.99), ratio,
                            refused[0], lat[0].size() + refused[0], refused[1], lat[1].size() + refused[1]));
                    if (refused[0] + refused[1] > 0) problems.add("quiet" + (i + 1) + " refused " + refused[0] + " alone, " + refused[1] + " under the flood");
                    // The latency bound needs the 60 s phases: with 30 jobs a phase the p99 is the one slowest job,
                    // which one collector pause or one flood job just ahead of it decides (seen: 0.13 s alone, 0.87 s under the flood).
                    if (seconds >= P99_MIN_SECONDS && !(ratio <= 1.5)) problems.add(String.format(Locale.ROOT, "quiet%d p99 under the flood %.2f× alone", i + 1, ratio));
                    if (lat[0].size() < seconds - 2 || lat[1].size() < seconds - 2) problems.add("quiet" + (i + 1) + " sent too few jobs");
                }
                List<Double> allAlone = slowest.get(0).stream().map(x -> (double) x[0]).sorted().toList();
                List<Double> allFlood = slowest.get(1).stream().map(x -> (double) x[0]).sorted().toList();
                table.append(String.format(Locale.ROOT, "[QuietTenantsUnderFloodIT] all quiet jobs together: alone p50 / p99 %.3f s / %.3f s (%d jobs), under the flood %.3f s / %.3f s (%d jobs): p99 ratio %.2f%n",
                        pct(allAlone, 0.5), pct(allAlone, 0.99), allAlone.size(), pct(allFlood, 0.5), pct(allFlood, 0.99), allFlood.size(), pct(allFlood, 0.99) / pct(allAlone, 0.99)));
                // Where the time went, all quiet jobs together: p50 / p99 of each stage, alone and under the flood,
                // and the slowest jobs of each phase stage by stage.
                table.append("[QuietTenantsUnderFloodIT] stages (s), all quiet jobs: | stage | alone p50 / p99 | under the flood p50 / p99 |\n");
                for (int k = 0; k < STAGES.length; k++) {
                    int stage = k;
                    List<Double> a = breakdown.get(0).stream().map(x -> x[stage]).sorted().toList();
                    List<Double> f = breakdown.get(1).stream().map(x -> x[stage]).sorted().toList();
                    table.append(String.format(Locale.ROOT, "[QuietTenantsUnderFloodIT] | %s | %.3f / %.3f | %.3f / %.3f |%n", STAGES[k], pct(a, 0.5), pct(a, 0.99), pct(f, 0.5), pct(f, 0.99)));
                }
                for (int ph = 0; ph < 2; ph++) {
                    List<Object[]> worst = new ArrayList<>(slowest.get(ph));
                    worst.sort((x, y) -> Double.compare((double) y[0], (double) x[0]));
                    for (Object[] w : worst.subList(0, Math.min(5, worst.size()))) {
                        double[] st = (double[]) w[2];
                        table.append(String.format(Locale.ROOT, "[QuietTenantsUnderFloodIT] slowest %s: %s sent %.1f s into the phase, %.3f s = admit %.3f + store %.3f + wait %.3f + run %.3f (answer %.3f)%n",
                                ph == 0 ? "alone" : "flood", w[1], (double) w[3], (double) w[0], st[0], st[1], st[2], st[3], st[4]));
                    }
                }
                // Work-conserving: the flooder's admitted tokens/s after the flood settled, against C less what the quiet tenants used.
                Instant from = floodStart.plusSeconds(SETTLE_SECONDS);
                double window = Duration.between(from, floodEnd).toMillis() / 1000.0;
                long flooderAdmitted = sent.stream().filter(s -> s.tenant().equals(flooder) && s.status() == 202 && !s.at().isBefore(from)).count();
                long flooderRefused = sent.stream().filter(s -> s.tenant().equals(flooder) && s.status() != 202).count();
                long quietAdmitted = sent.stream().filter(s -> !s.tenant().equals(flooder) && s.status() == 202 && !s.at().isBefore(from) && !s.at().isAfter(floodEnd)).count();
                double c = capacitySamples.stream().mapToDouble(x -> x[0]).average().orElse(Double.NaN);
                double m = capacitySamples.stream().mapToDouble(x -> x[1]).average().orElse(Double.NaN);
                double level = capacitySamples.stream().mapToDouble(x -> x[2]).average().orElse(Double.NaN);
                double flooderRate = flooderAdmitted * cost / window;
                double quietRate = quietAdmitted * cost / window;
                double left = c - quietRate;
                table.append(String.format(Locale.ROOT, "[QuietTenantsUnderFloodIT] flood after %d s settling (%.0f s): flooder admitted %.1f tokens/s (%d refused in all); quiet tenants %.1f tokens/s; "
                                + "capacity C %.1f, M %.1f tokens/s (mean), level %.3f: the quiet tenants leave %.1f, the flooder got %.0f %% of it%n",
                        SETTLE_SECONDS, window, flooderRate, flooderRefused, quietRate, c, m, level, left, 100 * flooderRate / left));
                if (status != null) {
                    table.append("[QuietTenantsUnderFloodIT] status at the flood's end: ").append(Json.write(status.path("capacity").path("cpu"))).append('\n');
                    // The flood's uploads go to the background lane, the quiet tenants' do not (docs/admission.md).
                    for (JsonNode t : status.path("capacity").path("cpu").path("tenants")) {
                        boolean isFlooder = t.path("tenant").asText().equals(flooder);
                        if (t.path("overShare").asBoolean() != isFlooder) {
                            problems.add(t.path("tenant").asText() + (isFlooder ? " not" : "") + " over its share at the flood's end");
                        }
                    }
                }
                double laned = Farm.metric(ingest.port(), "fairpix_ingest_over_share_uploads_total");
                table.append(String.format(Locale.ROOT, "[QuietTenantsUnderFloodIT] uploads served on the over-share lane: %.0f%n", laned));
                if (!(laned > 0)) problems.add("no upload was served on the over-share lane");
                System.out.print(table);
                assertThat(problems).as("\n" + table).isEmpty();
                assertThat(flooderRefused).as("the flood is above the capacity (the premise)").isPositive();
                assertThat(flooderRate).as("work-conserving: the flooder gets at least 80 %% of what the quiet tenants leave\n" + table).isGreaterThanOrEqualTo(0.8 * left);
            } finally {
                flooding.set(false);
                quietRuns.set(false);
                pool.shutdownNow();
                try (var lag = com.fairpix.autoscaler.signal.Signals.kafkaLag(config.get(Setting.KAFKA_BOOTSTRAP), Duration.ofSeconds(10))) {
                    long deadline = System.nanoTime() + 240_000_000_000L;
                    while (Farm.cpuLag(lag) > 0 && System.nanoTime() < deadline) Thread.sleep(500);
                }
                worker.stop(Duration.ofSeconds(10));
            }
        }
    }

    /** {@link #WARM_FLOOD_SECONDS} of a rate-200 flood over {@link #FLOOD_CONNECTIONS} connections, then the cpu queue drained. */
    private static void warmUpFlood(Farm.Client client, String tenant, byte[] photo, FairpixConfig config) throws Exception {
        String key = client.createTenant(tenant, Map.of("rate", 200, "burst", 400, "maxConcurrentJobs", 100_000, "dailyQuota", 10_000_000));
        long end = System.nanoTime() + WARM_FLOOD_SECONDS * 1_000_000_000L;
        try (ExecutorService flood = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < FLOOD_CONNECTIONS; c++) {
                flood.submit(() -> {
                    while (System.nanoTime() < end) {
                        Sent s = submit(client, tenant, key, photo, 1);
                        if (s.status() != 202) sleepUntil(Math.min(end, System.nanoTime() + (s.retryAfter() == null ? 1 : Long.parseLong(s.retryAfter())) * 1_000_000_000L));
                    }
                    return null;
                });
            }
        }
        try (var lag = com.fairpix.autoscaler.signal.Signals.kafkaLag(config.get(Setting.KAFKA_BOOTSTRAP), Duration.ofSeconds(10))) {
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (Farm.cpuLag(lag) > 0 && System.nanoTime() < deadline) Thread.sleep(500);
        }
    }

    private static double pct(List<Double> sorted, double p) {
        if (sorted.isEmpty()) return Double.NaN;
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
    }

    private static Sent submit(Farm.Client client, String tenant, String key, byte[] image, int phase) {
        Instant at = Instant.now();
        try {
            HttpResponse<String> r = client.submitRaw(key, image, "image/jpeg", SPEC);
            Instant answered = Instant.now();
            String id = r.statusCode() == 202 ? Json.mapper().readTree(r.body()).get("id").asText() : null;
            return new Sent(tenant, phase, r.statusCode(), r.headers().firstValue("Retry-After").orElse(null), id, at, answered);
        } catch (Exception e) {
            return new Sent(tenant, phase, -1, null, null, at, Instant.now());
        }
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long wait = nanoTime - System.nanoTime();
        if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
    }
}
