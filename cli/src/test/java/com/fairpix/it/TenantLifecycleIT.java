package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.Corpus;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.json.Json;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Tenant changes reach every running node within a second; a suspended tenant's jobs are held, then run. */
class TenantLifecycleIT {
    static IngestApi node1;
    static IngestApi node2;
    static Farm.Client api1;
    static Farm.Client api2;
    static byte[] photo;
    Worker worker;

    @BeforeAll
    static void start() throws Exception {
        FairpixConfig config = Farm.config();
        node1 = IngestApi.start(config);
        node2 = IngestApi.start(config);
        api1 = new Farm.Client(node1.port());
        api2 = new Farm.Client(node2.port());
        photo = Files.readAllBytes(Corpus.required("cameratrap-photos/ocelot.jpg"));
    }

    @AfterEach
    void stopWorker() {
        if (worker != null) worker.stop(Duration.ofSeconds(10));
    }

    @AfterAll
    static void stop() {
        if (node1 != null) node1.close();
        if (node2 != null) node2.close();
    }

    @Test
    void suspendingATenantHoldsItsQueuedJobsWhileOthersRunAndActivatingRunsThem() throws Exception {
        String a = Farm.tenantId("it-susp");
        String b = Farm.tenantId("it-busy");
        String keyA = api1.createTenant(a, Map.of());
        String keyB = api1.createTenant(b, Map.of());
        // Both nodes have served tenant A, so both hold it in their caches.
        List<String> jobsA = submit(api1, keyA, 2);
        jobsA.addAll(submit(api2, keyA, 2));

        assertThat(admin(api1, "POST", "/admin/v1/tenants/" + a + "/suspend").get("state").asText()).isEqualTo("SUSPENDED");
        long suspendedAt = System.nanoTime();
        awaitStatus(api1, keyA, 403, suspendedAt);
        awaitStatus(api2, keyA, 403, suspendedAt);

        List<String> jobsB = submit(api2, keyB, 3);
        worker = Worker.start(Farm.config(), -1);
        for (String id : jobsB) assertThat(api1.awaitTerminal(keyB, id, Duration.ofSeconds(60)).get("state").asText()).isEqualTo("DONE");
        Thread.sleep(1500); // give a wrongly dispatched held job time to show up as RUNNING or DONE
        for (String id : jobsA) assertThat(state(api1, a, id)).as("held job %s", id).isEqualTo("QUEUED");

        assertThat(admin(api2, "POST", "/admin/v1/tenants/" + a + "/activate").get("state").asText()).isEqualTo("ACTIVE");
        awaitStatus(api1, keyA, 200, System.nanoTime()); // node 1 hears of the activation within a second
        for (String id : jobsA) assertThat(api1.awaitTerminal(keyA, id, Duration.ofSeconds(60)).get("state").asText()).isEqualTo("DONE");
    }

    @Test
    void aNewUploadLimitTakesEffectOnARunningNodeWithinASecond() throws Exception {
        String t = Farm.tenantId("it-limit");
        String key = api1.createTenant(t, Map.of());
        assertThat(api2.submitMultipart(key, photo, "o.jpg", Farm.SPEC).statusCode()).isEqualTo(202);

        JsonNode patched = admin(api1, "PATCH", "/admin/v1/tenants/" + t, Map.of("maxUploadBytes", 100_000));
        assertThat(patched.get("maxUploadBytes").asLong()).isEqualTo(100_000);
        long changedAt = System.nanoTime();
        while (true) {
            int status = api2.submitMultipart(key, photo, "o.jpg", Farm.SPEC).statusCode();
            if (status == 413) break;
            assertThat(status).isEqualTo(202);
            assertThat(System.nanoTime() - changedAt).as("node 2 still accepts after 1 s").isLessThan(1_000_000_000L);
            Thread.sleep(20);
        }
    }

    @Test
    void aRevokedKeyStopsWorkingEverywhereWhileTheTenantsOtherKeyWorksAndDeletionIs401() throws Exception {
        String t = Farm.tenantId("it-keys");
        String first = api1.createTenant(t, Map.of());
        String second = admin(api1, "POST", "/admin/v1/tenants/" + t + "/keys").get("apiKey").asText();
        assertThat(api2.get(first, "/v1/jobs").statusCode()).isEqualTo(200);
        assertThat(api2.get(second, "/v1/jobs").statusCode()).isEqualTo(200);

        JsonNode keys = admin(api1, "GET", "/admin/v1/tenants/" + t + "/keys");
        assertThat(keys.get("keys")).hasSize(2);
        assertThat(keys.toString()).doesNotContain(first).doesNotContain(second);
        String firstId = keys.get("keys").get(0).get("keyId").asText();
        assertThat(api1.send("DELETE", "/admin/v1/tenants/" + t + "/keys/" + firstId, null).statusCode()).isEqualTo(204);
        long revokedAt = System.nanoTime();
        awaitStatus(api2, first, 401, revokedAt);
        assertThat(api2.get(second, "/v1/jobs").statusCode()).isEqualTo(200);

        assertThat(admin(api1, "DELETE", "/admin/v1/tenants/" + t).get("state").asText()).isEqualTo("DELETED");
        awaitStatus(api2, second, 401, System.nanoTime());
    }

    @Test
    void anotherTenantSeesNoneOfATenantsJobsOnAnyEndpoint() throws Exception {
        String a = Farm.tenantId("it-bola-a");
        String b = Farm.tenantId("it-bola-b");
        String keyA = api1.createTenant(a, Map.of());
        String keyB = api1.createTenant(b, Map.of());
        worker = Worker.start(Farm.config(), -1);
        String id = submit(api1, keyA, 1).get(0);
        JsonNode done = api1.awaitTerminal(keyA, id, Duration.ofSeconds(60));
        assertThat(done.get("state").asText()).isEqualTo("DONE");

        for (String path : List.of("/v1/jobs/" + id, "/v1/jobs/" + id + "/results/thumb", "/v1/jobs/" + id + "/results/large")) {
            HttpResponse<String> r = api2.get(keyB, path);
            assertThat(r.statusCode()).as(path).isEqualTo(404);
            assertThat(r.body()).doesNotContain(a);
        }
        assertThat(api2.send("DELETE", "/v1/jobs/" + id, keyB).statusCode()).isEqualTo(404);
        assertThat(api2.get(keyB, "/v1/jobs?limit=100").body()).doesNotContain(id);
        // the owner still sees everything
        assertThat(api2.get(keyA, "/v1/jobs?limit=100").body()).contains(id);
        assertThat(api2.download(keyA, "/v1/jobs/" + id + "/results/thumb").statusCode()).isEqualTo(200);
    }

    private static List<String> submit(Farm.Client api, String key, int n) throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            HttpResponse<String> r = api.submitMultipart(key, photo, "o.jpg", Farm.SPEC);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            ids.add(Json.mapper().readTree(r.body()).get("id").asText());
        }
        return ids;
    }

    private static String state(Farm.Client api, String tenant, String id) throws Exception {
        return admin(api, "GET", "/admin/v1/jobs/" + id).get("job").get("state").asText();
    }

    /** Polls until the node answers {@code status} to the key; fails if that takes a second or more. */
    private static void awaitStatus(Farm.Client api, String key, int status, long since) throws Exception {
        while (api.get(key, "/v1/jobs?limit=1").statusCode() != status) {
            assertThat(System.nanoTime() - since).as("no %d within 1 s", status).isLessThan(1_000_000_000L);
            Thread.sleep(10);
        }
    }

    private static JsonNode admin(Farm.Client api, String method, String path) throws Exception {
        return admin(api, method, path, null);
    }

    private static JsonNode admin(Farm.Client api, String method, String path, Object body) throws Exception {
        HttpResponse<String> r = api.send(method, path, body == null ? null : Json.write(body));
        assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isBetween(200, 299);
        return Json.mapper().readTree(r.body());
    }
}
