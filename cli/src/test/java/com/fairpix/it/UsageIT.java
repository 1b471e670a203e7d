package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.cli.Fairpix;
import com.fairpix.core.Corpus;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.job.JobRecord;
import com.fairpix.core.job.JobState;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.KafkaSupport;
import com.fairpix.core.kafka.Topics;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.core.usage.UsageLedger;
import com.fairpix.core.usage.UsageRetention;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;
import redis.clients.jedis.UnifiedJedis;

/**
 * Usage a tenant sees and an operator bills (docs/usage.md), on the real stack: a known mix of jobs
 * for two tenants, among them a job retried after its worker died, a job FAILED for its missing
 * watermark, and a finished job redelivered with its event unsent; then
 * {@code GET /v1/usage}, {@code GET /admin/v1/usage} and {@code fairpix usage --output csv} are held
 * to the job records: every job counted once, bytes and pixels exact, CPU the records' own. Runs on
 * the gpu pool's queue with worker processes of its own, so no in-process worker takes the jobs.
 */
class UsageIT {
    @RegisterExtension static final Farm.Ingest farm = new Farm.Ingest();
    /** A variant that halts the first worker once the job's attempt is recorded (JobRunner's test hook). */
    private static final String CRASH = "usage-crash";
    private static final String VARIANT = "[{\"op\":\"resize\",\"width\":160,\"height\":160,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"png\"}]";

    private static UnifiedJedis redis;
    private static UsageLedger ledger;

    @BeforeAll
    static void connect() {
        FairpixConfig config = Farm.config();
        redis = Redis.connect(config.get(Setting.REDIS_URL));
        ledger = UsageLedger.redis(redis, UsageRetention.from(config));
    }

    @AfterAll
    static void close() {
        if (redis != null) redis.close();
    }

    @Test
    void aKnownMixIsCountedOncePerJobWithExactBytesAndTheRecordsCpu() throws Exception {
        String a = Farm.tenantId("it-usage-a");
        String b = Farm.tenantId("it-usage-b");
        String keyA = farm.client().createTenant(a, Map.of("dailyQuota", 1000));
        String keyB = farm.client().createTenant(b, Map.of("dailyQuota", 1000));
        byte[] photo = Files.readAllBytes(Corpus.required("cameratrap-photos/ocelot.jpg"));
        String plain = spec("thumb");
        Map<String, List<String>> jobs = new HashMap<>(Map.of(a, new ArrayList<>(), b, new ArrayList<>()));
        Map<String, String> keys = Map.of(a, keyA, b, keyB);
        for (int i = 0; i < 3; i++) jobs.get(a).add(submit(keyA, photo, plain));
        String retried = submit(keyA, photo, spec(CRASH));                // its worker dies: attempt 2 on the next
        // Its watermark does not exist: FAILED asset-not-found on its first attempt, its original still billed.
        String crashed = submit(keyA, photo, "{\"pool\":\"gpu\",\"variants\":{\"marked\":[{\"op\":\"watermark\",\"key\":\"tenants/" + a
                + "/brand/none.png\"},{\"op\":\"encode\",\"format\":\"jpeg\"}]}}");
        jobs.get(a).addAll(List.of(retried, crashed));
        for (int i = 0; i < 3; i++) jobs.get(b).add(submit(keyB, Farm.smallJpeg(640 + 16 * i, 480, i), plain));
        String redelivered = jobs.get(b).get(0);

        Map<String, JsonNode> finished = new TreeMap<>();
        try (WorkerProcess first = WorkerProcess.start("gpu", 1, Map.of("FAIRPIX_TEST_CRASH_VARIANT", CRASH))) {
            assertThat(first.awaitExit(Duration.ofSeconds(180))).as("the first worker halts on %s:%n%s", retried, first.logTail()).isEqualTo(134);
        }
        try (WorkerProcess second = WorkerProcess.start("gpu", 2, Map.of())) {
            for (String tenant : List.of(a, b)) {
                for (String id : jobs.get(tenant)) finished.put(id, farm.client().awaitTerminal(keys.get(tenant), id, Duration.ofSeconds(180)));
            }
            assertThat(finished.get(retried).get("state").asText()).isEqualTo("DONE");
            assertThat(finished.get(retried).get("attempts").asInt()).isEqualTo(2);
            assertThat(finished.get(crashed).get("state").asText()).isEqualTo("FAILED");
            assertThat(finished.get(crashed).at("/error/reason").asText()).isEqualTo("asset-not-found");
            assertThat(finished.get(crashed).get("attempts").asInt()).isEqualTo(1);

            // A DONE job redelivered as after a crash between its DONE write and its event: the
            // worker publishes the event again and passes the job to the ledger again, which has it.
            redis.hdel(RedisKeys.job(b, redelivered), "eventSent");
            redeliver(b, redelivered);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (redis.hget(RedisKeys.job(b, redelivered), "eventSent") == null) {
                assertThat(System.nanoTime()).as("the redelivered job's event was not sent again:%n%s", second.logTail()).isLessThan(deadline);
                Thread.sleep(100);
            }
        }
        // A retried ledger call (a client re-sending after a timeout) counts nothing either.
        JobRecord stored = Json.read(redis.hget(RedisKeys.job(a, retried), "json"), JobRecord.class);
        assertThat(ledger.record(stored)).isFalse();

        for (String tenant : List.of(a, b)) {
            Map<LocalDate, long[]> expected = expected(jobs.get(tenant), finished);
            // The tenant's own view.
            HttpResponse<String> r = farm.client().get(keys.get(tenant), "/v1/usage?days=2&hours=2");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            JsonNode usage = Json.mapper().readTree(r.body());
            assertThat(usage.get("tenant").asText()).isEqualTo(tenant);
            assertThat(usage.at("/quota/used").asLong()).isEqualTo(jobs.get(tenant).size());
            assertThat(usage.at("/quota/left").asLong()).isEqualTo(1000 - jobs.get(tenant).size());
            assertThat(Instant.parse(usage.at("/quota/resetsAt").asText())).isAfter(Instant.now()).isBefore(Instant.now().plus(Duration.ofDays(1)));
            assertThat(usage.at("/concurrency/inUse").asLong()).isZero();
            assertThat(usage.at("/rate/tokensLeft").asDouble()).isLessThanOrEqualTo(usage.at("/rate/burst").asDouble());
            long failed = tenant.equals(a) ? 1 : 0;
            assertThat(usage.at("/jobs/done").asLong()).isEqualTo(jobs.get(tenant).size() - failed);
            assertThat(usage.at("/jobs/failed").asLong()).isEqualTo(failed);
            assertThat(usage.get("days")).hasSize(2);
            for (JsonNode day : usage.get("days")) {
                long[] want = expected.getOrDefault(LocalDate.parse(day.get("day").asText()), new long[6]);
                assertThat(new long[] {day.get("jobs").asLong(), day.get("failed").asLong(), day.get("cpuMillis").asLong(),
                        day.get("bytesIn").asLong(), day.get("bytesOut").asLong(), day.get("outputPixels").asLong()})
                        .as("%s on %s", tenant, day.get("day").asText()).containsExactly(want);
            }
            // The admin export, JSON through the API and CSV through the CLI.
            String from = expected.keySet().iterator().next().toString();
            String to = LocalDate.now(ZoneOffset.UTC).toString();
            JsonNode export = Json.mapper().readTree(farm.client().send("GET", "/admin/v1/usage?tenant=" + tenant + "&from=" + from + "&to=" + to, null).body());
            assertThat(export.get("rows")).hasSize(expected.size());
            for (JsonNode row : export.get("rows")) {
                assertThat(new long[] {row.get("jobs").asLong(), row.get("failed").asLong(), row.get("cpuMillis").asLong(),
                        row.get("bytesIn").asLong(), row.get("bytesOut").asLong(), row.get("outputPixels").asLong()})
                        .containsExactly(expected.get(LocalDate.parse(row.get("day").asText())));
            }
            List<String> csv = cli("usage", "--from", from, "--to", to, "--output", "csv").lines().toList();
            assertThat(csv.get(0)).isEqualTo("day,tenant,jobs,done,failed,cpu_ms,bytes_in,bytes_out,output_pixels,peak_rss_bytes");
            for (Map.Entry<LocalDate, long[]> e : expected.entrySet()) {
                long[] w = e.getValue();
                assertThat(csv).anySatisfy(line -> assertThat(line).startsWith(e.getKey() + "," + tenant + "," + w[0] + "," + (w[0] - w[1]) + "," + w[1]
                        + "," + w[2] + "," + w[3] + "," + w[4] + "," + w[5] + ","));
            }
        }
    }

    @Test
    void aTenantSeesOnlyItsOwnUsage() throws Exception {
        String c = Farm.tenantId("it-usage-c");
        String d = Farm.tenantId("it-usage-d");
        farm.client().createTenant(c, Map.of());
        String keyD = farm.client().createTenant(d, Map.of());
        Instant now = Instant.now();
        JobRecord job = new JobRecord("0190f3c5-0000-7000-8000-" + String.format("%012x", System.nanoTime() & 0xffffffffffffL), c, JobState.DONE, "cpu",
                now, now, now, now, new JobRecord.Original("k", "jpeg", 12_345, "00", 100, 100), null,
                Map.of("v", new JobRecord.Result("r", "png", "image/png", 10, 10, 678)), null, 1, new JobRecord.Usage(42, 1 << 27));
        assertThat(ledger.record(job)).isTrue();
        assertThat(ledger.record(job)).isFalse();

        // D's key sees D alone, whatever the query names.
        for (String path : List.of("/v1/usage", "/v1/usage?tenant=" + c, "/v1/usage?days=1&tenant=" + c)) {
            JsonNode usage = Json.mapper().readTree(farm.client().get(keyD, path).body());
            assertThat(usage.get("tenant").asText()).isEqualTo(d);
            for (JsonNode day : usage.get("days")) assertThat(day.get("jobs").asLong()).as(path).isZero();
            assertThat(usage.at("/jobs/done").asLong()).isZero();
        }
        // The admin sees C's job, under C only.
        String today = LocalDate.ofInstant(now, ZoneOffset.UTC).toString();
        JsonNode rowsC = Json.mapper().readTree(farm.client().send("GET", "/admin/v1/usage?tenant=" + c + "&from=" + today + "&to=" + today, null).body()).get("rows");
        assertThat(rowsC).hasSize(1);
        assertThat(rowsC.get(0).get("bytesIn").asLong()).isEqualTo(12_345);
        assertThat(rowsC.get(0).get("bytesOut").asLong()).isEqualTo(678);
        assertThat(rowsC.get(0).get("cpuMillis").asLong()).isEqualTo(42);
        JsonNode rowsD = Json.mapper().readTree(farm.client().send("GET", "/admin/v1/usage?tenant=" + d + "&from=" + today + "&to=" + today, null).body()).get("rows");
        assertThat(rowsD).isEmpty();
        // Without a key, or with the admin token on the tenant route: refused.
        assertThat(farm.client().get("", "/v1/usage").statusCode()).isEqualTo(401);
    }

    @Test
    void badWindowsAreRefusedWithTheirOwnProblemType() throws Exception {
        String key = farm.client().createTenant(Farm.tenantId("it-usage-w"), Map.of());
        BadInputIT.assertProblem(farm.client().send("GET", "/admin/v1/usage?from=2026-11-30&to=2026-11-01", null), 400, "usage-window-reversed");
        BadInputIT.assertProblem(farm.client().send("GET", "/admin/v1/usage?from=2024-01-01&to=2026-11-01", null), 400, "usage-window-too-long");
        BadInputIT.assertProblem(farm.client().send("GET", "/admin/v1/usage?from=2026-13-01", null), 400, "invalid-date");
        BadInputIT.assertProblem(farm.client().send("GET", "/admin/v1/usage?to=yesterday", null), 400, "invalid-date");
        BadInputIT.assertProblem(farm.client().send("GET", "/admin/v1/usage?tenant=Not_A_Tenant", null), 400, "invalid-tenant-id");
        BadInputIT.assertProblem(farm.client().send("GET", "/admin/v1/usage?format=xlsx", null), 400, "invalid-format");
        BadInputIT.assertProblem(farm.client().get(key, "/v1/usage?days=0"), 400, "invalid-days");
        BadInputIT.assertProblem(farm.client().get(key, "/v1/usage?days=93"), 400, "invalid-days");
        BadInputIT.assertProblem(farm.client().get(key, "/v1/usage?hours=x"), 400, "invalid-hours");
        // The CLI says what was wrong and fails.
        StringWriter err = new StringWriter();
        CommandLine cl = Fairpix.commandLine();
        cl.setOut(new PrintWriter(new StringWriter()));
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute("usage", "--from", "2026-11-30", "--to", "2026-11-01", "--url", url(), "--admin-token", Farm.ADMIN_TOKEN)).isEqualTo(Fairpix.FAILED);
        assertThat(err.toString()).contains("400").contains("after");
    }

    /** Per UTC day of the jobs' finish: jobs, failed, CPU ms, bytes in, bytes out, output pixels, from the job records. */
    private static Map<LocalDate, long[]> expected(List<String> ids, Map<String, JsonNode> finished) {
        Map<LocalDate, long[]> out = new TreeMap<>();
        for (String id : ids) {
            JsonNode job = finished.get(id);
            long[] s = out.computeIfAbsent(LocalDate.ofInstant(Instant.parse(job.get("finishedAt").asText()), ZoneOffset.UTC), k -> new long[6]);
            s[0]++;
            if (job.get("state").asText().equals("FAILED")) s[1]++;
            s[2] += job.path("usage").path("cpuMillis").asLong(0);
            s[3] += job.at("/original/size").asLong();
            for (JsonNode r : job.path("results")) {
                s[4] += r.get("size").asLong();
                s[5] += r.get("width").asLong() * r.get("height").asLong();
            }
            if (job.get("state").asText().equals("DONE")) {
                // The measured CPU is the processing thread's: more than nothing, and no more than the attempt's wall time (one thread).
                long cpu = job.at("/usage/cpuMillis").asLong();
                long wallMs = Duration.between(Instant.parse(job.get("startedAt").asText()), Instant.parse(job.get("finishedAt").asText())).toMillis();
                assertThat(cpu).as("job %s", id).isBetween(1L, wallMs + 10);
            }
        }
        return out;
    }

    private static String spec(String variant) {
        return "{\"pool\":\"gpu\",\"variants\":{\"" + variant + "\":" + VARIANT + "}}";
    }

    private static String submit(String key, byte[] image, String spec) throws Exception {
        HttpResponse<String> r = farm.client().submitRaw(key, image, "image/jpeg", spec);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        return Json.mapper().readTree(r.body()).get("id").asText();
    }

    /** Sends the job's message to its queue again, as Kafka does after a rebalance before the commit. */
    private static void redeliver(String tenant, String jobId) throws Exception {
        FairpixConfig config = Farm.config();
        JsonNode message = Farm.readTopic(config, Topics.jobs("gpu"), Set.of(tenant)).stream()
                .filter(m -> m.get("jobId").asText().equals(jobId)).findFirst().orElseThrow();
        try (KafkaProducer<String, byte[]> producer = KafkaSupport.producer(config.get(Setting.KAFKA_BOOTSTRAP), "it-usage-redeliver")) {
            producer.send(new ProducerRecord<>(Topics.jobs("gpu"), tenant, Json.mapper().writeValueAsBytes(message))).get();
        }
    }

    private static String url() {
        return "http://127.0.0.1:" + farm.api().port();
    }

    private static String cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--url", url(), "--admin-token", Farm.ADMIN_TOKEN));
        return Farm.cli(all);
    }
}
