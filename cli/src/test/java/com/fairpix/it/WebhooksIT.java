package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.job.JobIds;
import com.fairpix.core.json.Json;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fairpix.webhooks.WebhooksService;
import com.fasterxml.jackson.databind.JsonNode;
import com.standardwebhooks.Webhook;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Webhook delivery (signed bytes as sent, UTF-8, secrets, one delivery per job, retries, redelivery,
 * redirects never followed) and durable retries, on the real stack: a real
 * ingest-api, worker and dispatcher, real Kafka and Redis, a real HTTP receiver on 127.0.0.1;
 * every signature checked with the Standard Webhooks reference library.
 */
class WebhooksIT {
    static FairpixConfig config;
    static IngestApi ingest;
    static Worker worker;
    static WebhooksService dispatcher;
    static Receiver receiver;
    static Farm.Client client;

    @BeforeAll
    static void start() throws Exception {
        config = Webhooks.config("2s,2s,2s");
        receiver = new Receiver();
        ingest = IngestApi.start(config);
        worker = Worker.start(config, -1);
        dispatcher = WebhooksService.start(config, -1);
        client = new Farm.Client(ingest.port());
    }

    @AfterAll
    static void stop() {
        if (dispatcher != null) dispatcher.stop(Duration.ofSeconds(2));
        if (worker != null) worker.stop(Duration.ofSeconds(5));
        if (ingest != null) ingest.close();
        if (receiver != null) receiver.close();
    }

    /** Creates a tenant whose webhook goes to {@code path} on the receiver; returns [apiKey, secret]. */
    static String[] tenantWithWebhook(String id, String path) throws Exception {
        String key = client.createTenant(id, Map.of());
        HttpResponse<String> r = client.send("PATCH", "/admin/v1/tenants/" + id, Json.write(Map.of("webhookUrl", receiver.url(path))));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(Json.mapper().readTree(r.body()).has("webhookSecret")).as("a PATCH answer shows no secret").isFalse();
        // Only create and rotate show the secret.
        HttpResponse<String> rotated = client.send("POST", "/admin/v1/tenants/" + id + "/webhook-secret", null); // no body: the API takes none
        assertThat(rotated.statusCode()).as(rotated.body()).isEqualTo(200);
        return new String[] {key, Json.mapper().readTree(rotated.body()).get("webhookSecret").asText()};
    }

    static JsonNode delivery(String tenant, String id) throws Exception {
        HttpResponse<String> r = client.send("GET", "/admin/v1/tenants/" + tenant + "/webhooks/" + id, null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return Json.mapper().readTree(r.body());
    }

    static String cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--url", "http://127.0.0.1:" + ingest.port(), "--admin-token", Farm.ADMIN_TOKEN, "--output", "json"));
        return Farm.cli(all);
    }

    @Test
    void aRealJobIsDeliveredOnceSignedWithTheSecretShownAndRedeliveredUnderTheSameId() throws Exception {
        String tenant = Farm.tenantId("it-wh-real");
        String[] t = tenantWithWebhook(tenant, "/real");
        String secret = t[1];
        // The secret shown is whsec_ + padded standard base64 of 24-64 bytes.
        assertThat(secret).matches("whsec_[A-Za-z0-9+/]+={0,2}");
        assertThat(java.util.Base64.getDecoder().decode(secret.substring(6)).length).isBetween(24, 64);

        HttpResponse<String> submitted = client.submitRaw(t[0], Farm.smallJpeg(320, 240, 7), "image/jpeg", Farm.SPEC);
        assertThat(submitted.statusCode()).as(submitted.body()).isEqualTo(202);
        String jobId = Json.mapper().readTree(submitted.body()).get("id").asText();
        client.awaitTerminal(t[0], jobId, Duration.ofSeconds(60));
        Webhooks.await(() -> receiver.at("/real").size() == 1, Duration.ofSeconds(20), "the completion webhook");
        Receiver.Request first = receiver.at("/real").get(0);
        assertThatCode(() -> new Webhook(secret).verify(first.text(), first.headers())).doesNotThrowAnyException();
        JsonNode body = Json.mapper().readTree(first.body());
        assertThat(body.get("type").asText()).isEqualTo("job.succeeded");
        assertThat(body.at("/data/jobId").asText()).isEqualTo(jobId);
        assertThat(body.at("/data/results/thumb/size").asLong()).isPositive();
        assertThat(body.at("/data/version").asLong()).isPositive();

        // A re-run job emits its completion again with the same stable id: still one delivery.
        Webhooks.publish(config, Webhooks.completion(tenant, jobId, true, null, 2));
        Thread.sleep(3000);
        assertThat(receiver.at("/real")).hasSize(1);

        // An operator redelivers: same webhook-id, a fresh timestamp and signature; verifies.
        Thread.sleep(1100);
        JsonNode listed = Json.mapper().readTree(cli("webhooks", "list", "--tenant", tenant));
        assertThat(listed.get("deliveries")).hasSize(1);
        String id = listed.at("/deliveries/0/id").asText();
        assertThat(id).isEqualTo(first.id());
        cli("webhooks", "redeliver", "--tenant", tenant, id);
        Webhooks.await(() -> receiver.at("/real").size() == 2, Duration.ofSeconds(10), "the redelivery");
        Receiver.Request again = receiver.at("/real").get(1);
        assertThat(again.id()).isEqualTo(first.id());
        assertThat(Long.parseLong(again.timestamp())).isGreaterThan(Long.parseLong(first.timestamp()));
        assertThat(again.signature()).isNotEqualTo(first.signature());
        assertThat(again.body()).isEqualTo(first.body());
        assertThatCode(() -> new Webhook(secret).verify(again.text(), again.headers())).doesNotThrowAnyException();
        Webhooks.await(() -> {
            try {
                return delivery(tenant, id).get("attempts").size() == 2;
            } catch (Exception | AssertionError e) {
                return false; // not stored yet
            }
        }, Duration.ofSeconds(5), "the second attempt recorded");
        JsonNode got = Json.mapper().readTree(cli("webhooks", "get", "--tenant", tenant, id));
        assertThat(got.at("/attempts/1/manual").asBoolean()).isTrue();
        assertThat(got.at("/attempts/1/statusCode").asInt()).isEqualTo(200);
    }

    @Test
    void nonAsciiTextIsSentAsUtf8AndTheReferenceVerifierAcceptsTheRawBytes() throws Exception {
        String tenant = Farm.tenantId("it-wh-utf8");
        String secret = tenantWithWebhook(tenant, "/utf8")[1];
        String jobId = JobIds.next(Clock.systemUTC());
        Webhooks.publish(config, Webhooks.completion(tenant, jobId, false, "Zoë ₹ 🚀 caf\\u00e9 1.0", 1));
        Webhooks.await(() -> receiver.at("/utf8").size() == 1, Duration.ofSeconds(20), "the webhook");
        Receiver.Request r = receiver.at("/utf8").get(0);
        assertThat(r.text()).contains("Zoë ₹ 🚀").contains("caf\\\\u00e9 1.0");
        assertThat(r.text()).doesNotContain("\\uD83D"); // the emoji travels as UTF-8 bytes, not escaped surrogates
        assertThatCode(() -> new Webhook(secret).verify(r.text(), r.headers())).doesNotThrowAnyException();
    }

    @Test
    void aFailedAttemptIsRetriedUnderTheSameIdWithAFreshTimestampAndSignature() throws Exception {
        String tenant = Farm.tenantId("it-wh-retry");
        String secret = tenantWithWebhook(tenant, "/retry")[1];
        receiver.script("/retry", Receiver.Answer.of(500), Receiver.Answer.of(200));
        String jobId = JobIds.next(Clock.systemUTC());
        Webhooks.publish(config, Webhooks.completion(tenant, jobId, true, null, 1));
        Webhooks.await(() -> receiver.at("/retry").size() == 2, Duration.ofSeconds(20), "two attempts");
        List<Receiver.Request> rs = receiver.at("/retry");
        assertThat(rs.get(1).id()).isEqualTo(rs.get(0).id());
        assertThat(rs.get(1).timestamp()).isNotEqualTo(rs.get(0).timestamp());
        assertThat(rs.get(1).signature()).isNotEqualTo(rs.get(0).signature());
        for (Receiver.Request r : rs) assertThatCode(() -> new Webhook(secret).verify(r.text(), r.headers())).doesNotThrowAnyException();
        Webhooks.await(() -> {
            try {
                return delivery(tenant, rs.get(0).id()).get("status").asText().equals("SUCCEEDED");
            } catch (Exception | AssertionError e) {
                return false; // not stored yet
            }
        }, Duration.ofSeconds(5), "SUCCEEDED");
        JsonNode d = delivery(tenant, rs.get(0).id());
        assertThat(d.at("/attempts/0/statusCode").asInt()).isEqualTo(500);
        assertThat(d.at("/attempts/1/statusCode").asInt()).isEqualTo(200);
        assertThat(d.at("/attempts/0/durationMillis").isNumber()).isTrue();
        assertThat(d.toString()).doesNotContain("responseBody");
    }

    @Test
    void aRedirectIsARecordedFailureAndIsNeverFollowed() throws Exception {
        String tenant = Farm.tenantId("it-wh-302");
        tenantWithWebhook(tenant, "/redirect");
        receiver.script("/redirect", new Receiver.Answer(302, Map.of("Location", "http://169.254.169.254/latest/meta-data/"), 0));
        receiver.otherwise("/redirect", new Receiver.Answer(302, Map.of("Location", receiver.url("/followed")), 0));
        Webhooks.publish(config, Webhooks.completion(tenant, JobIds.next(Clock.systemUTC()), true, null, 1));
        Webhooks.await(() -> receiver.at("/redirect").size() >= 2, Duration.ofSeconds(20), "two attempts");
        String id = receiver.at("/redirect").get(0).id();
        JsonNode d = delivery(tenant, id);
        assertThat(d.at("/attempts/0/statusCode").asInt()).isEqualTo(302);
        assertThat(d.get("status").asText()).isNotEqualTo("SUCCEEDED");
        assertThat(receiver.at("/followed")).isEmpty();
        assertThat(receiver.all()).allMatch(r -> !r.path().contains("latest"));
    }

    @Test
    void gone410DisablesTheEndpointAndExhaustedRetriesAreDeadLetteredThenReplayed() throws Exception {
        String tenant = Farm.tenantId("it-wh-gone");
        tenantWithWebhook(tenant, "/gone");
        receiver.script("/gone", Receiver.Answer.of(410));
        String job1 = JobIds.next(Clock.systemUTC());
        Webhooks.publish(config, Webhooks.completion(tenant, job1, true, null, 1));
        Webhooks.await(() -> receiver.at("/gone").size() == 1, Duration.ofSeconds(20), "the first attempt");
        Webhooks.publish(config, Webhooks.completion(tenant, JobIds.next(Clock.systemUTC()), true, null, 1));
        Thread.sleep(3000);
        assertThat(receiver.at("/gone")).as("nothing more is sent to a disabled endpoint").hasSize(1);
        assertThat(delivery(tenant, "evt_" + job1 + "_done").get("status").asText()).isEqualTo("DISABLED");

        String dead = Farm.tenantId("it-wh-dead");
        tenantWithWebhook(dead, "/dead");
        receiver.otherwise("/dead", Receiver.Answer.of(503));
        String job2 = JobIds.next(Clock.systemUTC());
        Webhooks.publish(config, Webhooks.completion(dead, job2, true, null, 1));
        Webhooks.await(() -> {
            try {
                return delivery(dead, "evt_" + job2 + "_done").get("status").asText().equals("DEAD");
            } catch (Exception | AssertionError e) {
                return false; // not stored yet
            }
        }, Duration.ofSeconds(30), "dead-lettering after 4 attempts");
        assertThat(receiver.at("/dead")).hasSize(4);
        receiver.otherwise("/dead", Receiver.Answer.of(200));
        JsonNode replay = Json.mapper().readTree(cli("webhooks", "replay-failed", "--tenant", dead, "--since", "1h"));
        assertThat(replay.get("replayed")).hasSize(1);
        Webhooks.await(() -> receiver.at("/dead").size() == 5, Duration.ofSeconds(10), "the replay");
        assertThat(receiver.at("/dead").get(4).id()).isEqualTo(receiver.at("/dead").get(0).id());
    }

    @Test
    void aScheduledRetrySurvivesADispatcherRestart() throws Exception {
        String tenant = Farm.tenantId("it-wh-restart");
        String secret = tenantWithWebhook(tenant, "/restart")[1];
        receiver.script("/restart", Receiver.Answer.of(500));
        Webhooks.publish(config, Webhooks.completion(tenant, JobIds.next(Clock.systemUTC()), true, null, 1));
        Webhooks.await(() -> receiver.at("/restart").size() == 1, Duration.ofSeconds(20), "the first attempt");
        dispatcher.stop(Duration.ofSeconds(5));
        String id = receiver.at("/restart").get(0).id();
        Webhooks.await(() -> {
            try {
                return delivery(tenant, id).get("attempts").size() == 1;
            } catch (Exception | AssertionError e) {
                return false; // not stored yet
            }
        }, Duration.ofSeconds(5), "the failed attempt recorded");
        assertThat(delivery(tenant, id).get("status").asText()).isEqualTo("PENDING");
        Thread.sleep(3000); // the retry falls due while no dispatcher runs
        assertThat(receiver.at("/restart")).hasSize(1);
        dispatcher = WebhooksService.start(config, -1);
        Webhooks.await(() -> receiver.at("/restart").size() == 2, Duration.ofSeconds(15), "the retry after the restart");
        Receiver.Request r = receiver.at("/restart").get(1);
        assertThat(r.id()).isEqualTo(id);
        assertThatCode(() -> new Webhook(secret).verify(r.text(), r.headers())).doesNotThrowAnyException();
    }

    @Test
    void registrationRefusesInternalAndNonHttpsUrlsWithTheReason() throws Exception {
        String tenant = Farm.tenantId("it-wh-ssrf");
        client.createTenant(tenant, Map.of());
        HttpResponse<String> r = client.send("PATCH", "/admin/v1/tenants/" + tenant, Json.write(Map.of("webhookUrl", "https://169.254.169.254/latest")));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("link-local");
        r = client.send("PATCH", "/admin/v1/tenants/" + tenant, Json.write(Map.of("webhookUrl", "https://0x7f.0.0.1/")));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("non-canonical");
        // A per-job webhookUrl is checked at submission.
        String key = client.createTenant(Farm.tenantId("it-wh-spec"), Map.of());
        HttpResponse<String> s = client.submitRaw(key, Farm.smallJpeg(64, 64, 1), "image/jpeg",
                "{\"webhookUrl\":\"https://10.0.0.1/x\",\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":32}]}}");
        assertThat(s.statusCode()).isEqualTo(400);
        assertThat(s.body()).contains("private");
    }
}
