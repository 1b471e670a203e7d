package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.Corpus;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.image.ImageFormat;
import com.fairpix.core.json.Json;
import com.fairpix.core.storage.S3ObjectStore;
import com.fairpix.core.storage.StorageKeys;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fairpix.worker.process.OpenCv;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.opencv.core.Mat;
import org.opencv.core.MatOfByte;
import org.opencv.imgcodecs.Imgcodecs;

/** A real corpus photo through HTTP → S3 → Kafka → worker → S3, against the script-started stack. */
class SubmitPathIT {
    static FairpixConfig config;
    static IngestApi ingest;
    static Worker worker;
    static Farm.Client client;
    static S3ObjectStore s3;

    @BeforeAll
    static void start() {
        config = Farm.config();
        worker = Worker.start(config, -1);
        ingest = IngestApi.start(config);
        client = new Farm.Client(ingest.port());
        s3 = new S3ObjectStore(config.get(Setting.S3_ENDPOINT), config.get(Setting.S3_REGION),
                config.get(Setting.S3_ACCESS_KEY), config.get(Setting.S3_SECRET_KEY), config.get(Setting.S3_BUCKET));
        OpenCv.ensureLoaded();
    }

    @AfterAll
    static void stop() {
        if (ingest != null) ingest.close();
        if (worker != null) worker.stop(Duration.ofSeconds(10));
        if (s3 != null) s3.close();
    }

    /**
     * A tenant pays what its job cost (issue 33): a heavy blur of the whole 3 MP photo is not in the
     * estimate (a thumbnail's few tokens), so the worker, measuring the job's CPU, records the rest
     * as owed; the tenant's next submission pays it out of a 30-token bucket and is refused.
     */
    @Test
    void aJobThatCostMoreCpuThanItsEstimateIsChargedTheRestAfterwards() throws Exception {
        String tenant = Farm.tenantId("it-trueup");
        String key = client.createTenant(tenant, Map.of("rate", 1, "burst", 30));
        byte[] photo = Files.readAllBytes(Corpus.required("cameratrap-photos/american_black_bear.jpg"));
        String heavy = "{\"variants\":{\"t\":[{\"op\":\"blur\",\"sigma\":40},{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"jpeg\"}]}}";
        // A thumbnail costs what it was estimated to: nothing owed.
        String thumb = "{\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"webp\",\"quality\":80}]}}";
        HttpResponse<String> plain = client.submitRaw(key, photo, "image/jpeg", thumb);
        assertThat(plain.statusCode()).as(plain.body()).isEqualTo(202);
        JsonNode plainJob = client.awaitTerminal(key, Json.mapper().readTree(plain.body()).get("id").asText(), Duration.ofSeconds(60));
        System.out.printf("[SubmitPathIT] thumbnail job: estimate %.2f tokens, measured %.2f tokens%n", Farm.cost(config, photo, thumb),
                plainJob.path("usage").path("cpuMillis").asDouble() / com.fairpix.core.job.JobCost.MS_PER_TOKEN);
        Thread.sleep(1_000); // a debt is written just after DONE shows: give one the time to appear
        try (var redis = com.fairpix.core.redis.Redis.connect(config.get(Setting.REDIS_URL))) {
            assertThat(redis.exists(com.fairpix.core.redis.RedisKeys.trueUp(tenant))).as("a job within its estimate owes nothing").isFalse();
        }
        double estimate = Farm.cost(config, photo, heavy);
        HttpResponse<String> accepted = client.submitRaw(key, photo, "image/jpeg", heavy);
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        JsonNode job = client.awaitTerminal(key, Json.mapper().readTree(accepted.body()).get("id").asText(), Duration.ofSeconds(60));
        assertThat(job.get("state").asText()).isEqualTo("DONE");
        double measured = job.path("usage").path("cpuMillis").asDouble() / com.fairpix.core.job.JobCost.MS_PER_TOKEN;
        try (var redis = com.fairpix.core.redis.Redis.connect(config.get(Setting.REDIS_URL))) {
            // The worker writes the debt right after the DONE transition, which the client may see first.
            String owed = redis.get(com.fairpix.core.redis.RedisKeys.trueUp(tenant));
            for (long until = System.nanoTime() + 5_000_000_000L; owed == null && System.nanoTime() < until; owed = redis.get(com.fairpix.core.redis.RedisKeys.trueUp(tenant))) {
                Thread.sleep(50);
            }
            System.out.printf("[SubmitPathIT] blur job: estimate %.2f tokens, measured %.2f tokens, owed %s nanotokens%n", estimate, measured, owed);
            assertThat(measured).as("the premise: the blur costs more than the bucket holds after it").isGreaterThan(30 + estimate);
            assertThat(owed).as("the worker recorded the difference as owed").isNotNull();
            assertThat(Long.parseLong(owed) / 1e9).isCloseTo(measured - estimate, org.assertj.core.api.Assertions.within(1.0));
            HttpResponse<String> next = client.submitRaw(key, photo, "image/jpeg", heavy);
            assertThat(next.statusCode()).as("30 − 3 − %.1f − %.1f owed tokens cannot pay %.1f: %s", estimate, measured - estimate, estimate, next.body()).isEqualTo(429);
            assertThat(redis.exists(com.fairpix.core.redis.RedisKeys.trueUp(tenant))).as("the debt was taken out of the bucket").isFalse();
        }
    }

    @Test
    void aRotatedCameraTrapJpegIsStoredQueuedProcessedAndDownloadableUpright() throws Exception {
        String tenant = Farm.tenantId("it-path");
        String key = client.createTenant(tenant, Map.of());
        byte[] photo = Files.readAllBytes(Corpus.required("cameratrap-photos/african_elephants_with_exif_orientation.jpg"));

        HttpResponse<String> accepted = client.submitMultipart(key, photo, "elephants.jpg", Farm.SPEC);

        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        JsonNode job = Json.mapper().readTree(accepted.body());
        String id = job.get("id").asText();
        assertThat(accepted.headers().firstValue("Location")).hasValue("/v1/jobs/" + id);
        assertThat(job.get("state").asText()).isEqualTo("QUEUED");
        String uploadSha = sha256(photo);
        assertThat(job.at("/original/size").asLong()).isEqualTo(photo.length);
        assertThat(job.at("/original/sha256").asText()).isEqualTo(uploadSha);
        // stored 1536x2048 with EXIF orientation 6: the job reports the upright size
        assertThat(job.at("/original/width").asInt()).isEqualTo(2048);
        assertThat(job.at("/original/height").asInt()).isEqualTo(1536);

        String originalKey = StorageKeys.original(tenant, id, "jpg", Instant.parse(job.get("createdAt").asText()));
        assertThat(sha256(s3.get(originalKey, 10_000_000))).isEqualTo(uploadSha);

        JsonNode done = client.awaitTerminal(key, id, Duration.ofSeconds(60));
        assertThat(done.get("state").asText()).as(done.toString()).isEqualTo("DONE");
        // Timeline: accepted, then queued (the broker's append time), then started, then finished.
        Instant created = Instant.parse(done.get("createdAt").asText()), queued = Instant.parse(done.get("queuedAt").asText());
        Instant started = Instant.parse(done.get("startedAt").asText()), finished = Instant.parse(done.get("finishedAt").asText());
        assertThat(queued).isAfterOrEqualTo(created.truncatedTo(java.time.temporal.ChronoUnit.MILLIS)).isBeforeOrEqualTo(started);
        assertThat(finished).isAfter(started);

        assertResult(key, done, "thumb", ImageFormat.WEBP, 256, 256).release();
        assertResult(key, done, "large", ImageFormat.JPEG, 1024, 768).release();
    }

    @Test
    void aRotatedHeicAndAnAvifPhotoComeOutUprightAtTheirSizesAndAsAvif() throws Exception {
        String tenant = Farm.tenantId("it-heif");
        String key = client.createTenant(tenant, Map.of());
        // A real camera JPEG, 2048x1536, made into the files phones and browsers send: a HEIC whose
        // irot says "turn 90° clockwise" (EXIF 6, as an iPhone held upright records), and an AVIF.
        Mat photo = Imgcodecs.imdecode(new MatOfByte(Files.readAllBytes(Corpus.required("cameratrap-photos/african_elephants.jpg"))), Imgcodecs.IMREAD_REDUCED_COLOR_2);
        assertThat(com.fairpix.worker.process.LibHeif.available()).as("libheif (scripts install libheif1)").isTrue();
        byte[] heic = com.fairpix.worker.process.LibHeif.encodeHeic(photo, 85, 6);
        byte[] avif = com.fairpix.worker.process.LibHeif.encodeAvif(photo, 70, 8);
        String spec = "{\"variants\":{\"thumb\":[{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"inside\"},{\"op\":\"encode\",\"format\":\"jpeg\"}],"
                + "\"modern\":[{\"op\":\"resize\",\"width\":400},{\"op\":\"encode\",\"format\":\"avif\",\"quality\":60}]}}";

        HttpResponse<String> heicAccepted = client.submitRaw(key, heic, "image/heic", spec);
        HttpResponse<String> avifAccepted = client.submitRaw(key, avif, "image/avif", spec);

        assertThat(heicAccepted.statusCode()).as(heicAccepted.body()).isEqualTo(202);
        assertThat(avifAccepted.statusCode()).as(avifAccepted.body()).isEqualTo(202);
        JsonNode heicDone = client.awaitTerminal(key, Json.mapper().readTree(heicAccepted.body()).get("id").asText(), Duration.ofSeconds(60));
        JsonNode avifDone = client.awaitTerminal(key, Json.mapper().readTree(avifAccepted.body()).get("id").asText(), Duration.ofSeconds(60));
        assertThat(heicDone.get("state").asText()).as(heicDone.toString()).isEqualTo("DONE");
        assertThat(avifDone.get("state").asText()).as(avifDone.toString()).isEqualTo("DONE");

        // 1024x768 turned upright is 768x1024: inside 256 -> 192x256; 400 wide -> 400x533.
        assertThat(heicDone.at("/original/width").asInt() + "x" + heicDone.at("/original/height").asInt()).isEqualTo("768x1024");
        Mat thumb = assertResult(key, heicDone, "thumb", ImageFormat.JPEG, 192, 256);
        Mat upright = new Mat(), expected = new Mat();
        org.opencv.core.Core.rotate(photo, upright, org.opencv.core.Core.ROTATE_90_CLOCKWISE);
        org.opencv.imgproc.Imgproc.resize(upright, expected, new org.opencv.core.Size(192, 256), 0, 0, org.opencv.imgproc.Imgproc.INTER_AREA);
        org.opencv.core.Mat diff = new Mat();
        org.opencv.core.Core.absdiff(thumb, expected, diff);
        assertThat(org.opencv.core.Core.mean(diff).val[1]).as("the thumbnail is the photo turned upright (mean abs diff, green)").isLessThan(12);
        assertResult(key, heicDone, "modern", ImageFormat.AVIF, 400, 533).release();
        assertResult(key, avifDone, "thumb", ImageFormat.JPEG, 256, 192).release();
        assertResult(key, avifDone, "modern", ImageFormat.AVIF, 400, 300).release();
        for (Mat m : new Mat[] {photo, thumb, upright, expected, diff}) m.release();
    }

    @Test
    void anAutoEncodeBecomesTheFormatTheSubmittersAcceptHeaderPrefers() throws Exception {
        String tenant = Farm.tenantId("it-auto");
        String key = client.createTenant(tenant, Map.of());
        byte[] photo = Files.readAllBytes(Corpus.required("exif-orientation/Portrait_7.jpg"));
        String spec = "{\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":200},{\"op\":\"encode\",\"format\":\"auto\",\"quality\":55}]}}";

        JsonNode chrome = Json.mapper().readTree(client.submitRaw(key, photo, "image/jpeg", spec, "image/avif,image/webp,image/apng,*/*;q=0.8").body());
        JsonNode plain = Json.mapper().readTree(client.submitRaw(key, photo, "image/jpeg", spec, "*/*").body());

        assertThat(chrome.at("/spec/variants/t/1/format").asText()).as(chrome.toString()).isEqualTo("avif");
        JsonNode chromeDone = client.awaitTerminal(key, chrome.get("id").asText(), Duration.ofSeconds(60));
        JsonNode plainDone = client.awaitTerminal(key, plain.get("id").asText(), Duration.ofSeconds(60));
        assertResult(key, chromeDone, "t", ImageFormat.AVIF, 200, 300).release();
        assertResult(key, plainDone, "t", ImageFormat.JPEG, 200, 300).release();
    }

    @Test
    void jobTopicsStampRecordsWithTheBrokersAppendTime() throws Exception {
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                Map.<String, Object>of("bootstrap.servers", config.get(Setting.KAFKA_BOOTSTRAP)))) {
            for (String pool : java.util.List.of("cpu", "gpu")) {
                var topic = new org.apache.kafka.common.config.ConfigResource(org.apache.kafka.common.config.ConfigResource.Type.TOPIC,
                        com.fairpix.core.kafka.Topics.jobs(pool));
                var configs = admin.describeConfigs(java.util.List.of(topic)).all().get(30, java.util.concurrent.TimeUnit.SECONDS).get(topic);
                assertThat(configs.get("message.timestamp.type").value()).isEqualTo("LogAppendTime");
            }
        }
    }

    @Test
    void aRawImageBodyWithTheSpecInTheQueryIsAcceptedToo() throws Exception {
        String tenant = Farm.tenantId("it-raw");
        String key = client.createTenant(tenant, Map.of());
        byte[] photo = Files.readAllBytes(Corpus.required("exif-orientation/Portrait_7.jpg"));
        String spec = "{\"variants\":{\"small\":[{\"op\":\"resize\",\"width\":300,\"height\":300,\"fit\":\"contain\"},{\"op\":\"encode\",\"format\":\"png\"}]}}";

        HttpResponse<String> accepted = client.submitRaw(key, photo, "image/jpeg", spec);

        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        JsonNode done = client.awaitTerminal(key, Json.mapper().readTree(accepted.body()).get("id").asText(), Duration.ofSeconds(60));
        assertThat(done.get("state").asText()).isEqualTo("DONE");
        // Portrait stays portrait: 1200x1800 upright fits 300x300 as 200x300
        assertResult(key, done, "small", ImageFormat.PNG, 200, 300).release();
    }

    @Test
    void theJobsMessageAndTheAutoscalersCounterCarryTheTokensAdmissionCharged() throws Exception {
        String tenant = Farm.tenantId("it-cost");
        String key = client.createTenant(tenant, Map.of());
        byte[] photo = Files.readAllBytes(Corpus.required("exif-orientation/Portrait_7.jpg")); // 1200x1800
        String spec = "{\"variants\":{\"a\":[{\"op\":\"resize\",\"width\":300}],\"b\":[{\"op\":\"resize\",\"width\":4000,\"height\":4000,\"fit\":\"fill\"}]}}";
        // Admission's cost with default settings (the work model): the job's estimated CPU in tokens.
        com.fairpix.core.job.JobSpec parsed = com.fairpix.core.job.JobSpec.parse(spec);
        double expected = com.fairpix.ingest.admission.Limits.tokens(com.fairpix.ingest.admission.Cost.ofJob(
                com.fairpix.ingest.admission.AdmissionConfig.from(config), com.fairpix.core.image.ImageHeader.read(photo), photo.length, parsed,
                com.fairpix.core.job.OutputSize.of(parsed, 1200, 1800)));
        assertThat(expected).as("b makes a 16 MP image: more than a thumbnail's cost").isGreaterThan(10);

        HttpResponse<String> accepted = client.submitRaw(key, photo, "image/jpeg", spec);
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        JsonNode job = Json.mapper().readTree(accepted.body());
        String id = job.get("id").asText();
        Instant created = Instant.parse(job.get("createdAt").asText());

        // The job's Kafka message: what the worker's fair scheduler charges.
        Map<String, Object> props = Map.of("bootstrap.servers", config.get(Setting.KAFKA_BOOTSTRAP),
                "key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName(),
                "value.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
        com.fairpix.core.job.JobMessage message = null;
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<String, byte[]>(props)) {
            String topic = com.fairpix.core.kafka.Topics.jobs("cpu");
            var partitions = consumer.partitionsFor(topic).stream().map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            Map<org.apache.kafka.common.TopicPartition, Long> since = new java.util.HashMap<>();
            for (var tp : partitions) since.put(tp, created.minusSeconds(5).toEpochMilli());
            consumer.offsetsForTimes(since).forEach((tp, o) -> {
                if (o == null) consumer.seekToEnd(java.util.List.of(tp));
                else consumer.seek(tp, o.offset());
            });
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (message == null && System.nanoTime() < deadline) {
                for (var r : consumer.poll(Duration.ofMillis(500))) {
                    if (!tenant.equals(r.key())) continue;
                    com.fairpix.core.job.JobMessage m = Json.mapper().readValue(r.value(), com.fairpix.core.job.JobMessage.class);
                    if (m.jobId().equals(id)) message = m;
                }
            }
        }
        assertThat(message).as("the job's message on the cpu topic").isNotNull();
        assertThat(message.cost()).isCloseTo(expected, org.assertj.core.api.Assertions.within(1e-6));
        assertThat(message.schedulingCost()).isCloseTo(expected, org.assertj.core.api.Assertions.within(1e-6));

        // The autoscaler's per-second cost counter for the pool counts it too (other tests' jobs may share the second).
        try (var redis = com.fairpix.core.redis.Redis.connect(config.get(Setting.REDIS_URL))) {
            String counted = redis.get(com.fairpix.core.redis.RedisKeys.submittedCostPerSecond("cpu", created.getEpochSecond()));
            assertThat(counted).isNotNull();
            assertThat(Double.parseDouble(counted)).isGreaterThanOrEqualTo(expected - 1e-6);
        }
    }

    /** @return the decoded result (BGR/BGRA), for the caller to release */
    private static Mat assertResult(String key, JsonNode job, String variant, ImageFormat format, int width, int height) throws Exception {
        JsonNode result = job.at("/results/" + variant);
        assertThat(result.get("width").asInt()).isEqualTo(width);
        assertThat(result.get("height").asInt()).isEqualTo(height);
        HttpResponse<byte[]> download = client.download(key, result.get("url").asText());
        assertThat(download.statusCode()).isEqualTo(200);
        assertThat(download.headers().firstValue("Content-Type")).hasValueSatisfying(ct -> assertThat(ct).startsWith(format.contentType()));
        byte[] bytes = download.body();
        assertThat(bytes.length).isEqualTo(result.get("size").asInt());
        assertThat(ImageFormat.sniff(bytes)).isEqualTo(format);
        Mat decoded = format == ImageFormat.AVIF ? com.fairpix.worker.process.LibHeif.decode(bytes, true, 65_535)
                : Imgcodecs.imdecode(new MatOfByte(bytes), Imgcodecs.IMREAD_UNCHANGED);
        assertThat(decoded.cols()).isEqualTo(width);
        assertThat(decoded.rows()).isEqualTo(height);
        return decoded;
    }

    static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }
}
