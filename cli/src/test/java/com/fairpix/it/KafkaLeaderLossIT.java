package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fairpix.core.kafka.TenantPlacement;
import com.fairpix.core.kafka.Topics;
import com.fairpix.ingest.IngestApi;
import com.fairpix.worker.Worker;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 34, done-when 1: on the 3-broker cluster ({@code scripts/kafka-cluster}, the clustered pass
 * of {@code scripts/test}), SIGKILL the broker that leads the tenant's job partition while 4
 * connections submit small photos, and check what a user of the farm sees: every answer a 202 or a
 * 503 problem with Retry-After (never a 500, a dropped connection or a 202 for an unsent job), every
 * 202 DONE with exactly one completion event id, and 202s again once the partition has a new leader.
 * The killed broker is chosen to be the group coordinator of the workers and the leader of the
 * tenant's events partition too when one broker holds those roles with the job partition. It is
 * restarted afterwards (it rejoins and catches up).
 *
 * <p>Not in the single-broker pass (the failsafe configuration leaves it out there); run alone
 * without the cluster it fails under {@code FAIRPIX_REQUIRE_STACK} and is skipped otherwise.
 */
class KafkaLeaderLossIT {
    record Answer(long startNanos, long endNanos, int status, String retryAfter, String id, String body) {}

    @Test
    void killingTheLeaderOfTheTenantsPartitionUnderLoadLosesNoAcceptedJobAndDoesNoneTwice() throws Exception {
        // One partition per tenant, so "the tenant's partition" is one partition with one leader.
        FairpixConfig config = Farm.config().with(Setting.TENANT_PARTITION_RATE, "0");
        String bootstrap = config.get(Setting.KAFKA_BOOTSTRAP);
        requireCluster(bootstrap);
        Path script = Path.of(System.getProperty("fairpix.root", "..")).resolve("scripts/kafka-cluster").toAbsolutePath().normalize();
        String jobsTopic = Topics.jobs("cpu");

        Worker worker = Worker.start(config, -1);
        IngestApi ingest = IngestApi.start(config);
        Integer killed = null;
        Process restart = null;
        try (Admin admin = admin(bootstrap)) {
            var described = admin.describeTopics(List.of(jobsTopic)).allTopicNames().get(30, TimeUnit.SECONDS).get(jobsTopic);
            int partitions = described.partitions().size();
            // What makes the kill lossless: three copies, an acknowledgement from two, no out-of-sync leader (docs/kafka.md).
            assertThat(described.partitions()).as("replicas of %s", jobsTopic).allSatisfy(p -> assertThat(p.replicas()).hasSize(3));
            var topicConfig = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, jobsTopic))).all().get(30, TimeUnit.SECONDS).values().iterator().next();
            assertThat(topicConfig.get("min.insync.replicas").value()).as("min.insync.replicas of %s", jobsTopic).isEqualTo("2");
            assertThat(topicConfig.get("unclean.leader.election.enable").value()).as("unclean.leader.election.enable of %s", jobsTopic).isEqualTo("false");
            Target target = chooseTarget(admin, partitions);
            Farm.Client client = new Farm.Client(ingest.port());
            String key = client.createTenant(target.tenant(), Map.of());
            System.out.printf("[KafkaLeaderLossIT] tenant %s on %s-%d; killing node %d, which also %s%n", target.tenant(), jobsTopic,
                    target.partition(), target.node(), target.roles().isEmpty() ? "holds no other role of this test's" : "is " + String.join(" and ", target.roles()));

            List<Answer> answers = Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicInteger seed = new AtomicInteger();
            AtomicInteger acceptedSoFar = new AtomicInteger();
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            URI submit = URI.create("http://127.0.0.1:" + ingest.port() + "/v1/jobs?spec=" + URLEncoder.encode(Farm.SPEC, StandardCharsets.UTF_8));
            List<Thread> load = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                load.add(Thread.ofPlatform().start(() -> {
                    while (running.get()) {
                        byte[] photo = Farm.smallJpeg(320, 240, seed.incrementAndGet());
                        long start = System.nanoTime();
                        try {
                            // Raw HTTP, not Farm.Client: a 503 during the leader change is expected, not a contract break to stop at.
                            HttpResponse<String> r = http.send(HttpRequest.newBuilder(submit).header("Authorization", "Bearer " + key)
                                    .header("Content-Type", "image/jpeg").timeout(Duration.ofSeconds(20))
                                    .POST(HttpRequest.BodyPublishers.ofByteArray(photo)).build(), HttpResponse.BodyHandlers.ofString());
                            String id = r.statusCode() == 202 ? Json.mapper().readTree(r.body()).get("id").asText() : null;
                            if (id != null) acceptedSoFar.incrementAndGet();
                            answers.add(new Answer(start, System.nanoTime(), r.statusCode(), r.headers().firstValue("Retry-After").orElse(null), id, id == null ? r.body() : null));
                            Thread.sleep(50);
                        } catch (Exception e) {
                            answers.add(new Answer(start, System.nanoTime(), -1, null, null, e.toString()));
                        }
                    }
                }));
            }
            // Load first: at least 3 s of it and 8 accepted jobs (a loaded machine takes a while to the first 202s).
            for (long until = System.nanoTime() + 30_000_000_000L, from = System.nanoTime(); System.nanoTime() < until; Thread.sleep(100)) {
                if (System.nanoTime() - from > 3_000_000_000L && acceptedSoFar.get() >= 8) break;
            }
            long killAt = System.nanoTime();
            killed = target.node();
            RedisClusterFailoverIT.run("bash", script.toString(), "kill", String.valueOf(killed));
            long newLeaderAt = awaitNewLeader(admin, jobsTopic, target.partition(), killed, Duration.ofSeconds(60));
            // At least 4 s more, and on until a submission sent after the new leader took over is
            // accepted (at most 30 s): the ingest's Kafka breaker and the producer's metadata refresh
            // may take more than 4 s on a loaded machine (ci-run20: 503s until 4 s after the change,
            // the load stopped, no 202 to check).
            Thread.sleep(4000);
            for (long until = System.nanoTime() + 30_000_000_000L; System.nanoTime() < until && !acceptedAfter(answers, newLeaderAt); ) Thread.sleep(100);
            running.set(false);
            for (Thread t : load) t.join();
            // Back while the jobs finish: the rest of the pass runs on three brokers again.
            restart = new ProcessBuilder("bash", script.toString(), "restart", String.valueOf(killed)).redirectErrorStream(true).start();

            List<Answer> all = new ArrayList<>(answers);
            all.sort((a, b) -> Long.compare(a.endNanos(), b.endNanos()));
            Map<Integer, Integer> byStatus = new TreeMap<>();
            for (Answer a : all) byStatus.merge(a.status(), 1, Integer::sum);
            long longestGap = 0;
            long last202 = all.stream().filter(a -> a.status() == 202 && a.endNanos() < killAt).mapToLong(Answer::endNanos).max().orElse(killAt);
            for (Answer a : all) {
                if (a.status() != 202 || a.endNanos() < killAt) continue;
                longestGap = Math.max(longestGap, a.endNanos() - last202);
                last202 = a.endNanos();
            }
            List<Answer> refused = all.stream().filter(a -> a.status() == 503).toList();
            System.out.printf("[KafkaLeaderLossIT] node %d SIGKILLed; %s-%d led by another node after %.1f s; answers %s "
                            + "(202: %d, 503: %d); longest time without a 202 after the kill %.1f s; 503s from %s to %s s after the kill%n",
                    killed, jobsTopic, target.partition(), (newLeaderAt - killAt) / 1e9, byStatus, byStatus.getOrDefault(202, 0),
                    refused.size(), longestGap / 1e9,
                    refused.isEmpty() ? "-" : String.format("%.1f", (refused.getFirst().startNanos() - killAt) / 1e9),
                    refused.isEmpty() ? "-" : String.format("%.1f", (refused.getLast().endNanos() - killAt) / 1e9));

            assertThat(all.stream().filter(a -> a.status() == 202 && a.endNanos() < killAt)).as("202s before the kill").isNotEmpty();
            assertThat(all).as("every answer is a 202 or a 503 with Retry-After: no 500, no dropped connection")
                    .allSatisfy(a -> {
                        assertThat(a.status()).as("%s", a.body()).isIn(202, 503);
                        if (a.status() == 503) assertThat(a.retryAfter()).as("Retry-After of %s", a.body()).isNotNull();
                    });
            assertThat(all.stream().filter(a -> a.status() == 202 && a.startNanos() > newLeaderAt)).as("202s after the new leader took over").isNotEmpty();

            List<String> accepted = all.stream().map(Answer::id).filter(id -> id != null).toList();
            for (String id : accepted) {
                JsonNode job = client.awaitTerminal(key, id, Duration.ofSeconds(180));
                assertThat(job.get("state").asText()).as("accepted job %s: %s", id, job).isEqualTo("DONE");
            }
            IsolationIT.assertOneCompletionEventEach(config, Set.of(target.tenant()), accepted);
            System.out.printf("[KafkaLeaderLossIT] %d accepted jobs, all DONE with one completion event id each%n", accepted.size());
        } finally {
            ingest.close();
            worker.stop(Duration.ofSeconds(10));
            if (killed != null) {
                if (restart == null) restart = new ProcessBuilder("bash", script.toString(), "restart", String.valueOf(killed)).redirectErrorStream(true).start();
                String out = new String(restart.getInputStream().readAllBytes());
                assertThat(restart.waitFor(120, TimeUnit.SECONDS)).as("scripts/kafka-cluster restart %d", killed).isTrue();
                assertThat(restart.exitValue()).as("scripts/kafka-cluster restart %d:%n%s", killed, out).isZero();
            }
        }
    }

    /** The tenant, its job partition and the node to kill (the partition's leader), with the other roles that node has. */
    record Target(String tenant, int partition, int node, List<String> roles) {}

    /**
     * A fresh tenant whose job partition is led by the workers' group coordinator, and whose events
     * partition (same key) is led by that node too where the cluster allows; the broker to kill
     * then carries all three roles of the test's traffic. Where no partition index has both
     * leaders on one node, the coordinator's partition wins over the events leader's.
     */
    static Target chooseTarget(Admin admin, int partitions) throws Exception {
        Map<Integer, Integer> jobLeaders = leaders(admin, Topics.jobs("cpu"));
        Map<Integer, Integer> eventLeaders = leaders(admin, Topics.EVENTS);
        int eventPartitions = eventLeaders.size();
        Integer coordinator = null;
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (coordinator == null && System.nanoTime() < deadline) {
            // The worker has just started: its group exists once it has joined.
            Node c = admin.describeConsumerGroups(List.of(Topics.workerGroup("cpu"))).all().get(30, TimeUnit.SECONDS)
                    .get(Topics.workerGroup("cpu")).coordinator();
            if (c != null && c.id() >= 0) coordinator = c.id();
            else Thread.sleep(200);
        }
        Target best = null;
        int bestScore = -1;
        for (int i = 0; i < 10_000; i++) {
            String tenant = Farm.tenantId("kll" + i);
            int p = TenantPlacement.home(tenant, partitions);
            int leader = jobLeaders.get(p);
            boolean coordinates = coordinator != null && leader == coordinator;
            boolean leadsEvents = eventLeaders.get(TenantPlacement.home(tenant, eventPartitions)) == leader;
            // Both roles best; else the coordinator's (commits and heartbeats move), else the events leader's.
            int score = (coordinates ? 2 : 0) + (leadsEvents ? 1 : 0);
            if (score <= bestScore) continue;
            List<String> roles = new ArrayList<>();
            if (coordinates) roles.add("the workers' group coordinator");
            if (leadsEvents) roles.add("the leader of the tenant's events partition");
            best = new Target(tenant, p, leader, roles);
            bestScore = score;
            if (score == 3) break;
        }
        return best;
    }

    static Map<Integer, Integer> leaders(Admin admin, String topic) throws Exception {
        Map<Integer, Integer> out = new TreeMap<>();
        for (TopicPartitionInfo p : admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions()) {
            out.put(p.partition(), p.leader() == null ? -1 : p.leader().id());
        }
        return out;
    }

    /** Polls until {@code partition} of {@code topic} has a leader other than {@code killed}; returns System.nanoTime() then. */
    private static boolean acceptedAfter(List<Answer> answers, long nanos) {
        synchronized (answers) {
            return answers.stream().anyMatch(a -> a.status() == 202 && a.startNanos() > nanos);
        }
    }

    static long awaitNewLeader(Admin admin, String topic, int partition, int killed, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                Integer leader = leaders(admin, topic).get(partition);
                if (leader != null && leader >= 0 && leader != killed) return System.nanoTime();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // the node asked may be the one killed: ask again
            }
            Thread.sleep(100);
        }
        throw new AssertionError(topic + "-" + partition + " had no new leader within " + timeout);
    }

    static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3_000));
    }

    /**
     * Fails (under {@code FAIRPIX_REQUIRE_STACK}, as scripts/test sets it) or skips unless
     * {@code bootstrap} names a cluster of at least 3 brokers whose job topic has 3 replicas.
     */
    static void requireCluster(String bootstrap) throws Exception {
        String why = null;
        try (Admin admin = admin(bootstrap)) {
            int brokers = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size();
            if (brokers < 3) why = "FAIRPIX_KAFKA_BOOTSTRAP (" + bootstrap + ") names " + brokers + " broker(s)";
        }
        if (why == null) return;
        why = "KafkaLeaderLossIT needs the 3-broker Kafka cluster and " + why
                + ": it runs in the clustered pass of scripts/test, or after scripts/stack up --kafka-cluster and source .fairpix/stack.env";
        if (System.getenv("FAIRPIX_REQUIRE_STACK") != null) Assertions.fail(why);
        Assumptions.abort(why);
    }
}
