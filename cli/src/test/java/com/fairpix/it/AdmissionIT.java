package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.Corpus;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Admission control over HTTP against the script-started stack: two ingest nodes sharing Redis
 * admit exactly what one tenant's bucket holds, answer 429 as problem+json with Retry-After and
 * RateLimit fields, and concurrency slots come back when a job ends or its lease expires.
 */
class AdmissionIT {
    /**
     * Farm.SPEC without enlargement: the cost counts the pixels a variant makes, and Farm.SPEC's
     * "large" (contain 1024×1024) would make 1.05 MP of a 32×32 source; so each variant costs 1 token.
     */
    static final String SPEC = Farm.SPEC.replace("\"fit\":\"contain\"", "\"fit\":\"contain\",\"withoutEnlargement\":true");

    static FairpixConfig config;
    static IngestApi one;
    static IngestApi two;
    static Farm.Client clientOne;
    static Farm.Client clientTwo;
    static byte[] png;

    @BeforeAll
    static void start() throws Exception {
        // Short leases, so the "dead worker" case below does not wait 15 minutes.
        config = Farm.config().with(Setting.ADMISSION_LEASE_TTL_SECONDS, "2");
        one = IngestApi.start(config);
        two = IngestApi.start(config);
        clientOne = new Farm.Client(one.port());
        clientTwo = new Farm.Client(two.port());
        png = Files.readAllBytes(Corpus.required("pngsuite/basn6a08.png")); // 32×32: a job of SPEC costs 1-2 tokens (the 256 px thumbnail is an upscale)
    }

    @AfterAll
    static void stop() {
        if (one != null) one.close();
        if (two != null) two.close();
    }

    @Test
    void twoNodesAdmitExactlyTheBurstAndRejectTheRestWithRateLimitFields() throws Exception {
        // burst 10, almost no refill: exactly as many jobs as 10 tokens pay for fit, on either node.
        String key = clientOne.createTenant(Farm.tenantId("it-adm"), Map.of("rate", 0.001, "burst", 10));
        double cost = Farm.cost(config, png, SPEC);
        int fit = (int) Math.floor(10 / cost);
        assertThat(fit).as("the premise: a few jobs fit, not all 16").isBetween(2, 12);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            Farm.Client c = i % 2 == 0 ? clientOne : clientTwo;
            answers.add(pool.submit(() -> c.submitMultipart(key, png, "a.png", SPEC)));
        }
        int accepted = 0;
        HttpResponse<String> rejected = null;
        HttpResponse<String> ok = null;
        for (Future<HttpResponse<String>> f : answers) {
            HttpResponse<String> r = f.get();
            assertThat(r.statusCode()).as(r.body()).isIn(202, 429);
            if (r.statusCode() == 202) {
                accepted++;
                ok = r;
            } else {
                rejected = r;
            }
        }
        pool.shutdown();
        assertThat(accepted).isEqualTo(fit);
        assertThat(ok.headers().firstValue("RateLimit-Policy")).hasValueSatisfying(v -> assertThat(v).startsWith("\"tokens\";q=10;w=10000"));
        assertThat(ok.headers().firstValue("RateLimit")).isPresent();
        assertThat(rejected.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
        assertThat(rejected.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isPositive());
        // What is left after the last job that fit: less than one job's cost, whole tokens shown.
        long left = (long) Math.floor(10 - fit * cost);
        assertThat(rejected.headers().firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v).startsWith("\"tokens\";r=" + left + ";"));
        JsonNode problem = Json.mapper().readTree(rejected.body());
        assertThat(problem.get("status").asInt()).isEqualTo(429);
        assertThat(problem.get("violated-policies").get(0).asText()).isEqualTo("rate");
        assertThat(problem.get("cost").asDouble()).isCloseTo(cost, org.assertj.core.api.Assertions.within(1e-6));
        assertThat(problem.get("tenant").asText()).startsWith("it-adm-");
    }

    @Test
    void aCostThatNeverFitsIs422WithoutRetryAfter() throws Exception {
        String key = clientOne.createTenant(Farm.tenantId("it-adm-big"), Map.of("rate", 1, "burst", 1));
        HttpResponse<String> r = clientOne.submitMultipart(key, png, "a.png", SPEC);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(422);
        assertThat(r.headers().firstValue("Retry-After")).isEmpty();
        assertThat(Json.mapper().readTree(r.body()).get("violated-policies").get(0).asText()).isEqualTo("cost-exceeds-burst");
    }

    @Test
    void aSlotNobodyReleasesComesBackWhenItsLeaseExpires() throws Exception {
        // gpu pool: no worker of this test runs it, as if the worker holding it had been SIGKILLed.
        String key = clientOne.createTenant(Farm.tenantId("it-adm-cc"), Map.of("maxConcurrentJobs", 2));
        String spec = Farm.SPEC.replaceFirst("^\\{", "{\"pool\":\"gpu\",");
        assertThat(clientOne.submitMultipart(key, png, "a.png", spec).statusCode()).isEqualTo(202);
        assertThat(clientTwo.submitMultipart(key, png, "a.png", spec).statusCode()).isEqualTo(202);
        HttpResponse<String> third = clientOne.submitMultipart(key, png, "a.png", spec);
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(Json.mapper().readTree(third.body()).get("violated-policies").get(0).asText()).isEqualTo("concurrency");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        int status;
        do {
            Thread.sleep(250);
            status = clientTwo.submitMultipart(key, png, "a.png", spec).statusCode();
        } while (status != 202 && System.nanoTime() < deadline);
        assertThat(status).as("admitted once the 2 s leases expired").isEqualTo(202);
    }

    private static boolean sleep(long ms) throws InterruptedException {
        Thread.sleep(ms);
        return true;
    }

    @Test
    void aFinishedJobGivesItsSlotBackAtOnce() throws Exception {
        Worker worker = Worker.start(config, -1);
        try {
            String key = clientOne.createTenant(Farm.tenantId("it-adm-rel"), Map.of("maxConcurrentJobs", 1));
            HttpResponse<String> first = clientOne.submitMultipart(key, png, "a.png", Farm.SPEC);
            assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
            String id = Json.mapper().readTree(first.body()).get("id").asText();
            assertThat(clientOne.awaitTerminal(key, id, Duration.ofSeconds(60)).get("state").asText()).isEqualTo("DONE");
            // The worker releases the lease right after the DONE transition and its event, so a client
            // polling fast may see DONE a few milliseconds before the slot is free; far less than the
            // 2 s lease TTL of this test, far less than the 15 min default.
            long deadline = System.nanoTime() + Duration.ofMillis(1500).toNanos();
            HttpResponse<String> second;
            do {
                second = clientTwo.submitMultipart(key, png, "a.png", Farm.SPEC);
            } while (second.statusCode() == 429 && System.nanoTime() < deadline && sleep(50));
            assertThat(second.statusCode()).as(second.body()).isEqualTo(202);
        } finally {
            worker.stop(Duration.ofSeconds(10));
        }
    }
}
