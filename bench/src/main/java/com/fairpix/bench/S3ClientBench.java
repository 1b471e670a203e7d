package com.fairpix.bench;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.http.crt.AwsCrtHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The S3 client choices for the worker's per-job I/O (issue 21), side by side in one run against
 * the stack's S3 server: per client, {@code --pairs} pairs of one GET of the original
 * ({@code --original}, read whole) and one PUT of a result ({@code --result}) from
 * {@code --threads} threads, after an untimed warm-up of the same size. Prints pairs/s and the CPU
 * milliseconds per pair of this JVM (the client's cost) and of the S3 server (its PID from
 * {@code --server-pid}). Clients: the SDK's sync clients over Apache HttpClient 5 (the default),
 * URLConnection and the AWS CRT, and its async clients over Netty and the CRT (the "CRT-based S3
 * client").
 *
 * <p>Usage: {@code S3ClientBench --original FILE --result FILE [--pairs 600] [--threads 2] [--server-pid PID]}
 */
public final class S3ClientBench {
    interface Client extends AutoCloseable {
        void getAndPut(String getKey, String putKey, byte[] result);

        void put(String key, byte[] data);

        @Override
        void close();
    }

    public static void main(String[] args) throws Exception {
        Path original = null, result = null;
        int pairs = 600, threads = 2;
        long serverPid = -1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--original" -> original = Path.of(args[++i]);
                case "--result" -> result = Path.of(args[++i]);
                case "--pairs" -> pairs = Integer.parseInt(args[++i]);
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--server-pid" -> serverPid = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        byte[] originalBytes = Files.readAllBytes(original), resultBytes = Files.readAllBytes(result);
        Map<String, String> env = System.getenv();
        String endpoint = env.get("FAIRPIX_S3_ENDPOINT"), bucket = env.getOrDefault("FAIRPIX_S3_BUCKET", "fairpix");
        var creds = StaticCredentialsProvider.create(AwsBasicCredentials.create(env.get("FAIRPIX_S3_ACCESS_KEY"), env.get("FAIRPIX_S3_SECRET_KEY")));
        String prefix = "tenants/s3-client-bench-" + UUID.randomUUID().toString().substring(0, 6) + "/";
        List<Map.Entry<String, Supplier<Client>>> clients = List.of(
                Map.entry("sync apache5 (default)", () -> sync(Apache5HttpClient.builder().build(), endpoint, creds, bucket)),
                Map.entry("sync url-connection", () -> sync(UrlConnectionHttpClient.builder().build(), endpoint, creds, bucket)),
                Map.entry("sync aws-crt", () -> sync(AwsCrtHttpClient.builder().build(), endpoint, creds, bucket)),
                Map.entry("sync apache5, unchunked", () -> sync(Apache5HttpClient.builder().build(), endpoint, creds, bucket, false)),
                Map.entry("sync aws-crt, unchunked", () -> sync(AwsCrtHttpClient.builder().build(), endpoint, creds, bucket, false)),
                Map.entry("async netty", () -> async(S3AsyncClient.builder().region(Region.US_EAST_1).credentialsProvider(creds).forcePathStyle(true)
                        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED).responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                        .endpointOverride(URI.create(endpoint)).build(), bucket)),
                Map.entry("async crt-based S3", () -> async(S3AsyncClient.crtBuilder().region(Region.US_EAST_1).credentialsProvider(creds).forcePathStyle(true)
                        .checksumValidationEnabled(false).endpointOverride(URI.create(endpoint)).build(), bucket)));
        System.out.printf("%-26s %10s %14s %14s%n", "client", "pairs/s", "client CPU ms", "server CPU ms");
        for (var c : clients) {
            try (Client client = c.getValue().get()) {
                String getKey = prefix + "original";
                client.put(getKey, originalBytes);
                loop(client, getKey, prefix, resultBytes, Math.max(100, pairs), threads); // warm-up: as many pairs as measured
                long cpu0 = processCpuNanos(), server0 = FarmBench.CpuSampler.ticks(Path.of("/proc/" + serverPid + "/stat"));
                long t0 = System.nanoTime();
                loop(client, getKey, prefix, resultBytes, pairs, threads);
                double seconds = (System.nanoTime() - t0) / 1e9;
                double cpu = (processCpuNanos() - cpu0) / 1e6 / pairs;
                double server = (FarmBench.CpuSampler.ticks(Path.of("/proc/" + serverPid + "/stat")) - server0) * 10.0 / pairs;
                System.out.printf(Locale.ROOT, "%-26s %10.1f %14.2f %14.2f%n", c.getKey(), pairs / seconds, cpu, server);
            }
        }
        System.exit(0);
    }

    private static void loop(Client client, String getKey, String prefix, byte[] result, int pairs, int threads) throws Exception {
        AtomicInteger next = new AtomicInteger();
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                fs.add(pool.submit(() -> {
                    for (int i; (i = next.getAndIncrement()) < pairs; ) client.getAndPut(getKey, prefix + "result-" + (i % 32), result);
                }));
            }
            for (Future<?> f : fs) f.get();
        }
    }

    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    static Client sync(SdkHttpClient http, String endpoint, StaticCredentialsProvider creds, String bucket) {
        return sync(http, endpoint, creds, bucket, true);
    }

    /** @param chunked aws-chunked uploads (a signature per chunk), the SDK's default over plain HTTP */
    static Client sync(SdkHttpClient http, String endpoint, StaticCredentialsProvider creds, String bucket, boolean chunked) {
        S3Client s3 = S3Client.builder().httpClient(http)
                .serviceConfiguration(software.amazon.awssdk.services.s3.S3Configuration.builder().chunkedEncodingEnabled(chunked).build()).region(Region.US_EAST_1).credentialsProvider(creds).forcePathStyle(true)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED).responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofSeconds(30)))
                .endpointOverride(URI.create(endpoint)).build();
        return new Client() {
            @Override
            public void getAndPut(String getKey, String putKey, byte[] result) {
                ResponseBytes<?> got = s3.getObject(b -> b.bucket(bucket).key(getKey), ResponseTransformer.toBytes());
                if (got.asByteArrayUnsafe().length == 0) throw new IllegalStateException("empty original");
                put(putKey, result);
            }

            @Override
            public void put(String key, byte[] data) {
                s3.putObject(b -> b.bucket(bucket).key(key).contentType("image/jpeg").contentLength((long) data.length), RequestBody.fromBytes(data));
            }

            @Override
            public void close() {
                s3.close();
            }
        };
    }

    static Client async(S3AsyncClient s3, String bucket) {
        return new Client() {
            @Override
            public void getAndPut(String getKey, String putKey, byte[] result) {
                ResponseBytes<?> got = s3.getObject(b -> b.bucket(bucket).key(getKey), AsyncResponseTransformer.toBytes()).join();
                if (got.asByteArrayUnsafe().length == 0) throw new IllegalStateException("empty original");
                put(putKey, result);
            }

            @Override
            public void put(String key, byte[] data) {
                CompletableFuture<?> f = s3.putObject(b -> b.bucket(bucket).key(key).contentType("image/jpeg").contentLength((long) data.length),
                        AsyncRequestBody.fromBytes(data));
                f.join();
            }

            @Override
            public void close() {
                s3.close();
            }
        };
    }
}
