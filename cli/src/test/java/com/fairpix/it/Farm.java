package com.fairpix.it;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What the integration tests share: the script-started stack's addresses (from the FAIRPIX_*
 * environment that {@code scripts/test} sets) and a small HTTP client.
 */
final class Farm {

    /**
     * Runs {@code fairpix <args>} in this JVM and returns what it printed; fails the test (with its
     * stderr) when it exits non-zero.
     */
    static String cli(java.util.List<String> args) {
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        picocli.CommandLine cl = com.fairpix.cli.Fairpix.commandLine();
        cl.setOut(new java.io.PrintWriter(out));
        cl.setErr(new java.io.PrintWriter(err));
        Assertions.assertEquals(0, cl.execute(args.toArray(String[]::new)), String.join(" ", args) + ": " + err);
        return out.toString();
    }

    static final String ADMIN_TOKEN = "it-admin-" + UUID.randomUUID();
    static final String SPEC = "{\"variants\":{"
            + "\"thumb\":[{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"webp\",\"quality\":80}],"
            + "\"large\":[{\"op\":\"resize\",\"width\":1024,\"height\":1024,\"fit\":\"contain\"},{\"op\":\"encode\",\"format\":\"jpeg\",\"quality\":85}]}}";

    private Farm() {}

    static {
        // Every exchange the CLI makes in these tests is held to the services' OpenAPI documents too.
        com.fairpix.cli.Exchanges.observe((method, uri, status, type, body) ->
                OpenApiContract.of(uri.getPath().startsWith("/admin/v1/pools") ? "autoscaler" : "ingest").check(method, uri.getPath(), status, type, body));
    }

    /**
     * The stack's config with an admin token and random ports, and admission fixed: no farm capacity
     * (no borrowing, guarantees as configured) and no backlog shedding. Each of these tests checks
     * one mechanism (the scheduler under a flood that reached the queue, webhooks, breakers, ...)
     * and pins what it needs; with the shipped defaults the farm's capacity is measured as the
     * tests run, so a flood's admission would depend on which test ran before. {@link #shippedDefaults()}
     * is the farm as shipped (FloodIT). Aborts (or fails under scripts/test) without a stack.
     */
    static FairpixConfig config() {
        return withoutReadBudget(shippedDefaults().with(Setting.ADMISSION_FARM_CAPACITY, "0").with(Setting.BACKLOG_SOFT_SECONDS, "0")
                .with(Setting.BACKLOG_HARD_SECONDS, "0"));
    }

    /**
     * {@code config} with the per-tenant read budget lifted. Tests read every job of a tenant one by
     * one to see how it ran (thousands after a flood): the read pattern the budget exists to refuse,
     * and not what they test. ReadRateIT keeps the budget as shipped.
     */
    static FairpixConfig withoutReadBudget(FairpixConfig config) {
        return config.with(Setting.INGEST_TENANT_READS_PER_SECOND, "100000").with(Setting.INGEST_TENANT_READ_BURST, "100000");
    }

    /** The stack's config with an admin token and random ports, every other setting as shipped. */
    static FairpixConfig shippedDefaults() {
        Map<String, String> env = new HashMap<>(System.getenv());
        if (!env.containsKey("FAIRPIX_KAFKA_BOOTSTRAP")) {
            String why = "the local stack is not running: run scripts/test (or scripts/stack up and source .fairpix/stack.env)";
            if (env.containsKey("FAIRPIX_REQUIRE_STACK")) Assertions.fail(why);
            Assumptions.abort(why);
        }
        env.put(Setting.ADMIN_TOKEN.env(), ADMIN_TOKEN);
        env.put(Setting.INGEST_PORT.env(), "0");
        return FairpixConfig.load(env, Map.of());
    }

    /**
     * Drains what earlier tests left in the cpu queue with a worker of {@code config} (for tests that
     * measure what a worker does: leftovers would share it), then asserts the queue is empty.
     */
    static void drainCpuQueue(FairpixConfig config) throws Exception {
        try (var lag = com.fairpix.autoscaler.signal.Signals.kafkaLag(config.get(Setting.KAFKA_BOOTSTRAP), Duration.ofSeconds(10))) {
            if (cpuLag(lag) == 0) return;
            com.fairpix.worker.Worker cleaner = com.fairpix.worker.Worker.start(config.with(Setting.WORKER_PORT, "0"), 0);
            try {
                long deadline = System.nanoTime() + 120_000_000_000L;
                while (cpuLag(lag) > 0 && System.nanoTime() < deadline) Thread.sleep(500);
            } finally {
                cleaner.stop(Duration.ofSeconds(10));
            }
            Assertions.assertEquals(0, cpuLag(lag), "the cpu queue is empty before the test");
        }
    }

    /** The cpu queue's lag in messages; 0 when its topic does not exist yet (a fresh stack: the test may run first). */
    static long cpuLag(com.fairpix.autoscaler.signal.LagReader lag) throws Exception {
        try {
            return lag.lagByPartition("cpu").values().stream().mapToLong(Long::longValue).sum();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) return 0;
            throw e;
        }
    }

    /** Holds an answer of the {@code service}'s ("ingest", "autoscaler") to its OpenAPI document; returns it. */
    static <T> HttpResponse<T> checked(String service, HttpResponse<T> r) {
        Object b = r.body();
        String body = b instanceof String s ? s : b instanceof byte[] bytes && bytes.length > 0 ? "(binary)" : null;
        OpenApiContract.of(service).check(r.request().method(), r.request().uri().getPath(), r.statusCode(),
                r.headers().firstValue("Content-Type").orElse(null), body);
        return r;
    }

    /** {@code GET /admin/v1/status} of the ingest on {@code port}, asserted 200. */
    static JsonNode adminStatus(int port) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/admin/v1/status"))
                .header("Authorization", "Bearer " + ADMIN_TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        Assertions.assertEquals(200, r.statusCode(), r.body());
        OpenApiContract.of("ingest").check("GET", "/admin/v1/status", r.statusCode(), r.headers().firstValue("Content-Type").orElse(null), r.body());
        return Json.mapper().readTree(r.body());
    }

    /** The text of a service's {@code /metrics} (Prometheus exposition format; open on the service port by default). */
    static String scrape(int port) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The sum of every sample of {@code metric} (any labels) on a service's {@code /metrics}; 0 when it has none. */
    static double metric(int port, String metric) throws Exception {
        double sum = 0;
        for (String line : scrape(port).split("\n")) {
            if (line.startsWith(metric + " ") || line.startsWith(metric + "{")) sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
        return sum;
    }

    /** A unique tenant id for one test. */
    static String tenantId(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** A tenant id whose home partition (murmur2 of the id, as Kafka's default partitioner) is {@code partition}. */
    static String tenantOnPartition(String prefix, int partition, int partitions) {
        for (int i = 0; ; i++) {
            String id = prefix + "-" + UUID.randomUUID().toString().substring(0, 6) + i;
            if (partitionOf(id, partitions) == partition) return id;
        }
    }

    static int partitionOf(String tenant, int partitions) {
        return com.fairpix.core.kafka.TenantPlacement.home(tenant, partitions);
    }

    /**
     * The tokens admission charges for {@code image} with {@code spec} under {@code config}'s cost
     * model: the ingest's own formula ({@code Cost.ofJob}), so a test's premise follows the model.
     */
    static double cost(FairpixConfig config, byte[] image, String spec) {
        try {
            com.fairpix.core.job.JobSpec parsed = com.fairpix.core.job.JobSpec.parse(spec);
            com.fairpix.core.image.ImageHeader header = com.fairpix.core.image.ImageHeader.read(image);
            return com.fairpix.ingest.admission.Limits.tokens(com.fairpix.ingest.admission.Cost.ofJob(com.fairpix.ingest.admission.AdmissionConfig.from(config),
                    header, image.length, parsed, com.fairpix.core.job.OutputSize.of(parsed, header.displayWidth(), header.displayHeight())));
        } catch (com.fairpix.core.image.ImageHeader.HeaderException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** A small real JPEG (noise and gradients), {@code width} x {@code height}, made with OpenCV. */
    static byte[] smallJpeg(int width, int height, int seed) {
        com.fairpix.worker.process.OpenCv.ensureLoaded();
        org.opencv.core.Mat m = new org.opencv.core.Mat(height, width, org.opencv.core.CvType.CV_8UC3);
        org.opencv.core.Core.randu(m, 0, 255);
        org.opencv.imgproc.Imgproc.circle(m, new org.opencv.core.Point(width / 2.0, height / 2.0), Math.min(width, height) / 3,
                new org.opencv.core.Scalar(seed % 255, 128, 255 - seed % 255), -1);
        return encode(m, ".jpg");
    }

    /** Encodes {@code m} ({@code extension} e.g. ".png") with OpenCV and releases it. */
    static byte[] encode(org.opencv.core.Mat m, String extension) {
        org.opencv.core.MatOfByte out = new org.opencv.core.MatOfByte();
        try {
            org.opencv.imgcodecs.Imgcodecs.imencode(extension, m, out);
            return out.toArray();
        } finally {
            m.release();
            out.release();
        }
    }

    /** Every record of {@code topic} from the beginning whose key is one of {@code tenants}, as JSON values. */
    static java.util.List<JsonNode> readTopic(FairpixConfig config, String topic, java.util.Set<String> tenants) {
        java.util.Properties p = new java.util.Properties();
        p.put("bootstrap.servers", config.get(Setting.KAFKA_BOOTSTRAP));
        p.put("key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName());
        p.put("value.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
        java.util.List<JsonNode> out = new java.util.ArrayList<>();
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<String, byte[]>(p)) {
            var partitions = consumer.partitionsFor(topic).stream()
                    .map(i -> new org.apache.kafka.common.TopicPartition(topic, i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            var end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.key() != null && tenants.contains(r.key())) {
                        try {
                            out.add(Json.mapper().readTree(r.value()));
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }
                }
            }
        }
        return out;
    }

    /**
     * An ingest-api on the stack for one test class, with a {@link Client} over it, started before
     * the class's own {@code @BeforeAll} and closed after it:
     * {@code @RegisterExtension static final Farm.Ingest farm = new Farm.Ingest();}
     */
    static final class Ingest implements org.junit.jupiter.api.extension.BeforeAllCallback, org.junit.jupiter.api.extension.AfterAllCallback {
        private com.fairpix.ingest.IngestApi api;
        private Client client;

        @Override
        public void beforeAll(org.junit.jupiter.api.extension.ExtensionContext context) {
            api = com.fairpix.ingest.IngestApi.start(config());
            client = new Client(api.port());
        }

        @Override
        public void afterAll(org.junit.jupiter.api.extension.ExtensionContext context) {
            if (api != null) api.close();
        }

        com.fairpix.ingest.IngestApi api() {
            return api;
        }

        Client client() {
            return client;
        }
    }

    /** Minimal HTTP client over one ingest-api. */
    static final class Client {
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        private final String base;

        Client(int port) {
            this.base = "http://127.0.0.1:" + port;
        }

        /**
         * Creates a tenant with optional limits; returns its API key. Without a rate, burst or
         * concurrency cap the tenant gets generous ones, so tests about other things are not
         * throttled by admission.
         */
        String createTenant(String id, Map<String, Object> limits) throws IOException, InterruptedException {
            Map<String, Object> body = new HashMap<>(limits);
            body.putIfAbsent("rate", 10_000);
            body.putIfAbsent("burst", 100_000);
            // Admission caps QUEUED+RUNNING jobs: tests that queue a backlog need room for it.
            body.putIfAbsent("maxConcurrentJobs", 10_000);
            body.put("id", id);
            String json = Json.write(body);
            HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + "/admin/v1/tenants"))
                    .header("Authorization", "Bearer " + ADMIN_TOKEN).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(json)).build(), json);
            Assertions.assertEquals(201, r.statusCode(), r.body());
            return Json.mapper().readTree(r.body()).get("apiKey").asText();
        }

        HttpResponse<String> submitMultipart(String key, byte[] image, String filename, String spec) throws IOException, InterruptedException {
            String boundary = "fairpix" + UUID.randomUUID().toString().replace("-", "");
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            body.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"spec\"\r\nContent-Type: application/json\r\n\r\n"
                    + spec + "\r\n").getBytes(StandardCharsets.UTF_8));
            body.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"image\"; filename=\"" + filename
                    + "\"\r\nContent-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            body.writeBytes(image);
            body.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/v1/jobs"))
                    .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()));
            if (key != null) b.header("Authorization", "Bearer " + key);
            return send(b.build());
        }

        HttpResponse<String> submitRaw(String key, byte[] image, String contentType, String spec) throws IOException, InterruptedException {
            return submitRaw(key, image, contentType, spec, null);
        }

        /** @param accept an Accept header (an {@code auto} encode is resolved from it), or null */
        HttpResponse<String> submitRaw(String key, byte[] image, String contentType, String spec, String accept) throws IOException, InterruptedException {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/v1/jobs?spec=" + java.net.URLEncoder.encode(spec, StandardCharsets.UTF_8)))
                    .header("Content-Type", contentType)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(image));
            if (key != null) b.header("Authorization", "Bearer " + key);
            if (accept != null) b.header("Accept", accept);
            return send(b.build());
        }

        HttpResponse<String> get(String key, String path) throws IOException, InterruptedException {
            return send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + key).GET().build());
        }

        HttpResponse<byte[]> download(String key, String path) throws IOException, InterruptedException {
            HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + key).GET().build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            String type = r.headers().firstValue("Content-Type").orElse(null);
            // An image is checked for its status and media type; a problem body as JSON.
            boolean text = type != null && type.contains("json");
            OpenApiContract.of("ingest").check("GET", URI.create(base + path).getPath(), r.statusCode(), type,
                    text ? new String(r.body(), StandardCharsets.UTF_8) : r.body().length == 0 ? null : "(binary)");
            return r;
        }

        JsonNode job(String key, String id) throws IOException, InterruptedException {
            HttpResponse<String> r = get(key, "/v1/jobs/" + id);
            // A tenant polling past its read budget waits out the Retry-After as the CLI does.
            for (int tries = 0; r.statusCode() == 429 && tries < 30; tries++) {
                Thread.sleep(1000L * Long.parseLong(r.headers().firstValue("Retry-After").orElse("1")));
                r = get(key, "/v1/jobs/" + id);
            }
            Assertions.assertEquals(200, r.statusCode(), r.body());
            return Json.mapper().readTree(r.body());
        }

        /** Polls until the job is terminal, every 100 ms; fails after {@code timeout}. */
        JsonNode awaitTerminal(String key, String id, Duration timeout) throws IOException, InterruptedException {
            return awaitTerminal(key, id, timeout, Duration.ofMillis(100));
        }

        /** Polls until the job is terminal, every {@code poll}; fails after {@code timeout}. */
        JsonNode awaitTerminal(String key, String id, Duration timeout, Duration poll) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            JsonNode job = job(key, id);
            while (!isTerminal(job)) {
                if (System.nanoTime() > deadline) Assertions.fail("job " + id + " still " + job.get("state").asText() + " after " + timeout);
                Thread.sleep(poll.toMillis());
                job = job(key, id);
            }
            return job;
        }

        /** An admin call with the admin token; {@code bearerOrBody}: a JSON body for admin paths, a tenant key for /v1 paths. */
        HttpResponse<String> send(String method, String path, String bearerOrBody) throws IOException, InterruptedException {
            boolean tenantPath = path.startsWith("/v1/");
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                    .header("Authorization", "Bearer " + (tenantPath ? bearerOrBody : ADMIN_TOKEN));
            if (!tenantPath && bearerOrBody != null) {
                b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(bearerOrBody));
                return send(b.build(), bearerOrBody);
            }
            b.method(method, HttpRequest.BodyPublishers.noBody());
            return send(b.build());
        }

        /** Every exchange of every test through this client is held to the ingest's OpenAPI document (OpenApiContract). */
        private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
            return send(request, null);
        }

        /** @param jsonBody the request's JSON body (checked against the document when the answer is 2xx); null for none or a non-JSON one */
        private HttpResponse<String> send(HttpRequest request, String jsonBody) throws IOException, InterruptedException {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            OpenApiContract.of("ingest").check(request.method(), request.uri().getPath(), jsonBody == null ? null : "application/json", jsonBody,
                    r.statusCode(), r.headers().firstValue("Content-Type").orElse(null), r.body());
            return r;
        }
    }

    static boolean isTerminal(JsonNode job) {
        String s = job.path("state").asText();
        return s.equals("DONE") || s.equals("FAILED") || s.equals("CANCELLED");
    }
}
