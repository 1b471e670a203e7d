package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.core.redis.Redis;
import com.fairpix.core.redis.RedisKeys;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Runs only against a Redis Cluster (the second pass of {@code scripts/test}, or
 * {@code FAIRPIX_REDIS_URL=$(scripts/redis-cluster url)}): SIGKILLs the master that holds the
 * tenant's slot while the tenant submits, lets its replica take over, and checks what a user of
 * the farm sees: every answer a 202 or a 503 problem with Retry-After (admission's
 * fail-open/closed policy, never a 500 or a dropped connection), no accepted job lost, the ingest
 * ready again. The killed node is restarted afterwards (it rejoins as a replica).
 */
class RedisClusterFailoverIT {
    record Answer(long atNanos, int status, String retryAfter, String id, String body) {}

    @Test
    void killingTheTenantsMasterUnderLoadLosesNoAcceptedJob() throws Exception {
        FairpixConfig config = Farm.config();
        String url = config.get(Setting.REDIS_URL);
        Assumptions.assumeTrue(Redis.isCluster(url), "needs a Redis Cluster: FAIRPIX_REDIS_URL=$(scripts/redis-cluster url), or the second pass of scripts/test");
        Path script = Path.of("..", "scripts", "redis-cluster").toAbsolutePath().normalize();
        int firstPort = Redis.nodes(url).iterator().next().getPort();
        String tenant = tenantOnMasterOfSlotZero(firstPort);

        Worker worker = Worker.start(config, -1);
        IngestApi ingest = IngestApi.start(config);
        String killed = null;
        try {
            Farm.Client client = new Farm.Client(ingest.port());
            String key = client.createTenant(tenant, Map.of());
            byte[] jpeg = Farm.smallJpeg(64, 64, 3);
            List<Answer> answers = Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean running = new AtomicBoolean(true);
            List<Thread> load = new ArrayList<>();
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            for (int i = 0; i < 4; i++) {
                load.add(Thread.ofPlatform().start(() -> {
                    while (running.get()) {
                        long at = System.nanoTime();
                        try {
                            // Raw HTTP, not Farm.Client: a 503 mid-failover is the point, not a contract break to stop at.
                            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ingest.port() + "/v1/jobs?spec="
                                            + java.net.URLEncoder.encode(Farm.SPEC, java.nio.charset.StandardCharsets.UTF_8)))
                                    .header("Authorization", "Bearer " + key).header("Content-Type", "image/jpeg")
                                    .timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofByteArray(jpeg)).build(),
                                    HttpResponse.BodyHandlers.ofString());
                            String id = r.statusCode() == 202 ? Json.mapper().readTree(r.body()).get("id").asText() : null;
                            answers.add(new Answer(at, r.statusCode(), r.headers().firstValue("Retry-After").orElse(null), id, id == null ? r.body() : null));
                            Thread.sleep(25);
                        } catch (Exception e) {
                            answers.add(new Answer(at, -1, null, null, e.toString()));
                        }
                    }
                }));
            }
            Thread.sleep(3000);
            long killAt = System.nanoTime();
            killed = run(script.toString(), "kill-master").trim();
            long promoted = awaitPromoted(firstPort == Integer.parseInt(killed) ? firstPort + 1 : firstPort, Integer.parseInt(killed), Duration.ofSeconds(30));
            Thread.sleep(4000);
            running.set(false);
            for (Thread t : load) t.join();

            List<Answer> all = new ArrayList<>(answers);
            Map<Integer, Integer> byStatus = new TreeMap<>();
            for (Answer a : all) byStatus.merge(a.status(), 1, Integer::sum);
            System.out.printf("RedisClusterFailoverIT: killed master %s; cluster ok again after %.1f s; answers %s%n",
                    killed, (promoted - killAt) / 1e9, byStatus);
            assertThat(all).as("answers before, during and after the failover").isNotEmpty();
            assertThat(all).as("every answer is a 202 or a 503 with Retry-After: no 500, no dropped connection")
                    .allSatisfy(a -> {
                        assertThat(a.status()).as(a.body()).isIn(202, 503);
                        if (a.status() == 503) assertThat(a.retryAfter()).isNotNull();
                    });
            assertThat(all.stream().filter(a -> a.status() == 202 && a.atNanos() > promoted)).as("admitted again after the failover").isNotEmpty();

            int done = 0;
            for (Answer a : all) {
                if (a.id() == null) continue;
                JsonNode job = client.awaitTerminal(key, a.id(), Duration.ofSeconds(90));
                assertThat(job.get("state").asText()).as("accepted job %s", a.id()).isEqualTo("DONE");
                done++;
            }
            System.out.printf("RedisClusterFailoverIT: %d accepted jobs, %d DONE%n", done, done);
            HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ingest.port() + "/health/ready")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).as("ingest ready after the failover: %s", ready.body()).isEqualTo(200);
        } finally {
            ingest.close();
            worker.stop(Duration.ofSeconds(10));
            if (killed != null && !killed.isBlank()) {
                run(script.toString(), "restart", killed);
                awaitClusterOk(Integer.parseInt(killed), Duration.ofSeconds(30));
            }
        }
    }

    /** A fresh tenant id whose admission key hashes into slot 0's range (0-5460 as created), the range kill-master hits. */
    static String tenantOnMasterOfSlotZero(int port) {
        for (int i = 0; ; i++) {
            String t = Farm.tenantId("rcf" + i);
            if (JedisClusterCRC16.getSlot(RedisKeys.admission(t)) <= 5460) return t;
        }
    }

    /**
     * Waits until another node than {@code killed} is the healthy master of slot 0's range and the
     * cluster is ok, as the node on {@code port} sees it; returns System.nanoTime() then.
     */
    static long awaitPromoted(int port, int killed, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try (Jedis j = new Jedis("127.0.0.1", port)) {
                for (String line : j.clusterNodes().split("\n")) {
                    String[] f = line.trim().split(" ");
                    if (f.length < 9 || !f[2].contains("master") || f[2].contains("fail") || !f[8].startsWith("0-")) continue;
                    int master = Integer.parseInt(f[1].split("[:@]")[1]);
                    if (master != killed && j.clusterInfo().contains("cluster_state:ok")) return System.nanoTime();
                }
            } catch (RuntimeException e) {
                // not answering yet
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no replica took over slot 0's range within " + timeout);
    }

    /** Waits until the node on {@code port} reports cluster_state:ok; returns System.nanoTime() then. */
    static long awaitClusterOk(int port, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try (Jedis j = new Jedis("127.0.0.1", port)) {
                String info = j.clusterInfo();
                boolean allSlots = info.contains("cluster_slots_ok:16384");
                if (info.contains("cluster_state:ok") && allSlots) return System.nanoTime();
            } catch (RuntimeException e) {
                // not answering yet
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the cluster was not ok within " + timeout);
    }

    static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes());
        String err = new String(p.getErrorStream().readAllBytes());
        if (p.waitFor() != 0) throw new AssertionError(String.join(" ", command) + " failed: " + err);
        return out;
    }
}
