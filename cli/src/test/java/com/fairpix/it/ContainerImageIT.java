package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.Corpus;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import com.fairpix.core.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * fairpix as a container user runs it: the ingest-api and a worker each from the image that
 * {@code scripts/image} builds (from this build's jar), with the host's network, against the
 * scripted stack. Real photos go in through the containerised ingest and come out DONE from the
 * containerised worker; the worker container is frozen ({@code docker pause}) with a backlog for
 * longer than the Kafka session timeout and then thawed: every accepted job ends DONE, once.
 *
 * <p>Needs a Docker engine ({@code scripts/test} starts one): without it this fails in one line,
 * unless {@code FAIRPIX_TEST_CONTAINERS=0}. {@code FAIRPIX_TEST_IMAGE} names an image to use instead
 * of building one. Ryuk is off (failsafe sets {@code TESTCONTAINERS_RYUK_DISABLED}): the containers
 * are removed here, and nothing is pulled.
 */
class ContainerImageIT {
    /** Past the scripted stack's 6 s Kafka session timeout (scripts/stack), so the frozen worker is expired from its group. */
    private static final Duration PAUSE = Duration.ofSeconds(9);
    private static final String LABEL = "com.fairpix.test.container-image-it";
    private static final String SPEC = "{\"pool\":\"gpu\",\"variants\":{"
            + "\"thumb\":[{\"op\":\"resize\",\"width\":256,\"height\":256,\"fit\":\"cover\"},{\"op\":\"encode\",\"format\":\"webp\",\"quality\":80}]}}";
    private static final String[] PHOTOS = {"african_elephants.jpg", "american_black_bear.jpg", "domestic_cattle.jpg", "african_elephants_bw.jpg"};

    private static FairpixConfig config;
    private static GenericContainer<?> ingest;
    private static GenericContainer<?> worker;
    private static Farm.Client client;
    private static int workerPort;

    @BeforeAll
    static void startContainers() throws Exception {
        if ("0".equals(System.getenv("FAIRPIX_TEST_CONTAINERS"))) Assumptions.abort("FAIRPIX_TEST_CONTAINERS=0: the container tests are left out");
        config = Farm.config();
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            Assertions.fail("no Docker engine answers (DOCKER_HOST or /var/run/docker.sock): the container tests need one; scripts/test starts dockerd, or set FAIRPIX_TEST_CONTAINERS=0 to leave them out");
        }
        String image = imageUnderTest();
        // Ryuk is off: containers an earlier run could not remove (its JVM killed) go now.
        var docker = DockerClientFactory.instance().client();
        for (var c : docker.listContainersCmd().withShowAll(true).withLabelFilter(Map.of(LABEL, "true")).exec()) {
            docker.removeContainerCmd(c.getId()).withForce(true).withRemoveVolumes(true).exec();
        }

        int ingestPort = freePort();
        workerPort = freePort();
        Map<String, String> env = new HashMap<>();
        // Every setting this farm runs with that is not the default: the stack's addresses, the
        // admin token, admission pinned as the other integration tests pin it.
        for (Setting s : Setting.values()) {
            String v = config.get(s);
            if (v != null && !v.equals(s.defaultValue())) env.put(s.env(), v);
        }
        env.put(Setting.INGEST_PORT.env(), Integer.toString(ingestPort));
        env.put(Setting.WORKER_PORT.env(), Integer.toString(workerPort));
        // The worker as it is meant to run where codecs are untrusted: processors in bubblewrap.
        Map<String, String> workerEnv = new HashMap<>(env);
        workerEnv.put(Setting.WORKER_PROCESSORS.env(), "process");

        ingest = container(image, env, "ingest-api started").withCommand("ingest-api");
        worker = container(image, workerEnv, "worker for pool gpu started").withCommand("worker", "--pool", "gpu", "--threads", "1")
                // bubblewrap makes user and network namespaces, which Docker's default seccomp profile refuses.
                .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig().withSecurityOpts(List.of("seccomp=unconfined")));
        long t0 = System.nanoTime();
        CompletableFuture.allOf(CompletableFuture.runAsync(ingest::start), CompletableFuture.runAsync(worker::start)).get(120, TimeUnit.SECONDS);
        System.out.printf("ContainerImageIT: ingest-api and worker containers of %s ready in %d ms%n", image, (System.nanoTime() - t0) / 1_000_000);
        client = new Farm.Client(ingestPort);
    }

    @AfterAll
    static void stopContainers() {
        if (worker != null) worker.stop();
        if (ingest != null) ingest.stop();
    }

    @Test
    void photosGoThroughTheContainersAndAFrozenWorkerLosesNoneAndDoesNoneTwice() throws Exception {
        assertThat(get("http://127.0.0.1:" + workerPort + "/health/ready").statusCode()).as("worker /health/ready").isEqualTo(200);
        String tenant = Farm.tenantId("it-image");
        String key = client.createTenant(tenant, Map.of());
        List<byte[]> photos = new ArrayList<>();
        for (String p : PHOTOS) photos.add(Files.readAllBytes(Corpus.required("cameratrap-photos/" + p)));

        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 16; i++) ids.add(submit(key, photos.get(i % photos.size()), PHOTOS[i % PHOTOS.length]));
        awaitDone(key, ids, 2, Duration.ofSeconds(60));

        var docker = DockerClientFactory.instance().client();
        docker.pauseContainerCmd(worker.getContainerId()).exec();
        int doneAtPause;
        try {
            assertThat(docker.inspectContainerCmd(worker.getContainerId()).exec().getState().getPaused()).as("worker container paused").isTrue();
            doneAtPause = countDone(key, ids);
            // Accepted while the worker is frozen: the ingest does not depend on it.
            for (int i = 0; i < 4; i++) ids.add(submit(key, photos.get(i), PHOTOS[i]));
            Thread.sleep(PAUSE.toMillis());
            assertThat(countDone(key, ids)).as("a frozen worker finishes nothing").isEqualTo(doneAtPause);
        } finally {
            docker.unpauseContainerCmd(worker.getContainerId()).exec();
        }
        assertThat(doneAtPause).as("the pause must land with a backlog").isLessThan(16);
        long t0 = System.nanoTime();

        for (String id : ids) {
            JsonNode job = client.awaitTerminal(key, id, Duration.ofSeconds(90), Duration.ofMillis(250));
            assertThat(job.get("state").asText()).as("job %s; worker log:%n%s", id, tail(worker)).isEqualTo("DONE");
            assertThat(job.get("results").size()).isEqualTo(1);
        }
        IsolationIT.assertOneCompletionEventEach(config, Set.of(tenant), ids);
        System.out.printf("ContainerImageIT: paused %d s with %d of 16 DONE; the other %d done %d ms after the thaw; the worker was assigned partitions %d times%n",
                PAUSE.toSeconds(), doneAtPause, ids.size() - doneAtPause, (System.nanoTime() - t0) / 1_000_000,
                worker.getLogs().split("assigned \\[fairpix.jobs", -1).length - 1);
        assertThat(worker.getLogs()).as("processors ran in bubblewrap inside the container").contains(", sandboxed");
        HttpResponse<byte[]> thumb = client.download(key, "/v1/jobs/" + ids.get(0) + "/results/thumb");
        assertThat(thumb.statusCode()).isEqualTo(200);
        assertThat(new String(thumb.body(), 0, 4, java.nio.charset.StandardCharsets.US_ASCII)).as("a WebP thumbnail").isEqualTo("RIFF");
    }

    private static GenericContainer<?> container(String image, Map<String, String> env, String readyLine) {
        return new GenericContainer<>(DockerImageName.parse(image))
                // The image is built here; nothing is ever pulled.
                .withImagePullPolicy(name -> false)
                .withNetworkMode("host")
                .withLabel(LABEL, "true")
                .withEnv(env)
                .waitingFor(Wait.forLogMessage(".*" + readyLine + ".*\\n", 1).withStartupTimeout(Duration.ofSeconds(90)));
    }

    /** FAIRPIX_TEST_IMAGE, else the image scripts/image builds from this build's jar (its base cached). */
    private static String imageUnderTest() throws Exception {
        String given = System.getenv("FAIRPIX_TEST_IMAGE");
        if (given != null && !given.isBlank()) return given;
        Path root = Path.of(System.getProperty("fairpix.root", ".."));
        Path log = Files.createTempFile(Path.of("target"), "image-", ".log");
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder("bash", root.resolve("scripts/image").toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(600, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            Assertions.fail("scripts/image took over 600 s; log: " + log);
        }
        String out = Files.readString(log);
        Assertions.assertEquals(0, p.exitValue(), "scripts/image failed:\n" + out);
        System.out.printf("ContainerImageIT: scripts/image in %d ms: %s", (System.nanoTime() - t0) / 1_000_000, out.lines().reduce((a, b) -> b).orElse("") + "\n");
        Process tag = new ProcessBuilder("bash", root.resolve("scripts/image").toString(), "--tag").start();
        String image = new String(tag.getInputStream().readAllBytes()).trim();
        Assertions.assertEquals(0, tag.waitFor());
        return image;
    }

    private static String submit(String key, byte[] photo, String name) throws Exception {
        HttpResponse<String> r = client.submitMultipart(key, photo, name, SPEC);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        return Json.mapper().readTree(r.body()).get("id").asText();
    }

    private static void awaitDone(String key, List<String> ids, int atLeast, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (countDone(key, ids) < atLeast) {
            if (System.nanoTime() > deadline) Assertions.fail("fewer than " + atLeast + " jobs DONE after " + timeout + "; worker log:\n" + tail(worker));
            assertThat(worker.isRunning()).as("worker container died:%n%s", tail(worker)).isTrue();
            Thread.sleep(100);
        }
    }

    private static int countDone(String key, List<String> ids) throws Exception {
        int done = 0;
        for (String id : ids) if (client.job(key, id).get("state").asText().equals("DONE")) done++;
        return done;
    }

    private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String tail(GenericContainer<?> c) {
        String logs = c.getLogs();
        return logs.length() > 6000 ? logs.substring(logs.length() - 6000) : logs;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
