package com.fairpix.core.storage;

import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * {@link ObjectStore} over the AWS SDK v2, path-style, for S3 and S3-compatible servers. One per
 * process: the client keeps the connection pool.
 */
public final class S3ObjectStore implements ObjectStore {
    private final S3Client s3;
    /** Built here, so closed here: the SDK does not close an HTTP client it was handed. */
    private final software.amazon.awssdk.http.SdkHttpClient http;
    private final String bucket;

    /**
     * The HTTP client under the SDK ({@code s3.http-client}, whose constraint lists these as
     * {@code apache} and {@code url-connection}); their CPU per call is compared in docs/overhead.md.
     */
    public enum HttpClientKind {
        /** Apache HttpClient 5, the SDK's own default: the most S3 calls per second in the farm (the default). */
        APACHE,
        /** The JDK's HttpURLConnection: pure Java, no pool of its own to tune. */
        URL_CONNECTION
    }

    /** The store the {@code s3.*} settings describe. */
    public static S3ObjectStore from(com.fairpix.core.config.FairpixConfig config) {
        return new S3ObjectStore(config.get(com.fairpix.core.config.Setting.S3_ENDPOINT), config.get(com.fairpix.core.config.Setting.S3_REGION),
                config.get(com.fairpix.core.config.Setting.S3_ACCESS_KEY), config.get(com.fairpix.core.config.Setting.S3_SECRET_KEY),
                config.get(com.fairpix.core.config.Setting.S3_BUCKET), config.choice(com.fairpix.core.config.Setting.S3_HTTP_CLIENT, HttpClientKind.class));
    }

    /** @param endpoint endpoint override (e.g. http://127.0.0.1:19000); null or blank for AWS */
    public S3ObjectStore(String endpoint, String region, String accessKey, String secretKey, String bucket) {
        this(endpoint, region, accessKey, secretKey, bucket, HttpClientKind.APACHE);
    }

    /**
     * @param endpoint endpoint override (e.g. http://127.0.0.1:19000); null or blank for AWS
     * @param kind     the HTTP client under the SDK
     */
    public S3ObjectStore(String endpoint, String region, String accessKey, String secretKey, String bucket, HttpClientKind kind) {
        this.http = httpClient(kind);
        var builder = S3Client.builder()
                .httpClient(this.http)
                .region(Region.of(region))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .forcePathStyle(true)
                // One SigV4 payload hash over the whole body instead of aws-chunked uploads (a signature
                // per chunk): the same integrity check by the server, at 0.4x the client's CPU per
                // GET+PUT pair (S3ClientBench, docs/overhead.md).
                .serviceConfiguration(software.amazon.awssdk.services.s3.S3Configuration.builder().chunkedEncodingEnabled(false).build())
                // Checksums only where S3 requires them: S3-compatible servers differ in what they accept.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(c -> c.apiCallTimeout(Duration.ofSeconds(30)).apiCallAttemptTimeout(Duration.ofSeconds(10)));
        if (endpoint != null && !endpoint.isBlank()) builder.endpointOverride(URI.create(endpoint));
        this.s3 = builder.build();
        this.bucket = bucket;
    }

    private static software.amazon.awssdk.http.SdkHttpClient httpClient(HttpClientKind kind) {
        return switch (kind) {
            case APACHE -> software.amazon.awssdk.http.apache5.Apache5HttpClient.builder().maxConnections(50)
                    .connectionTimeout(Duration.ofSeconds(2)).socketTimeout(Duration.ofSeconds(10)).build();
            case URL_CONNECTION -> software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.builder()
                    .connectionTimeout(Duration.ofSeconds(2)).socketTimeout(Duration.ofSeconds(10)).build();
        };
    }

    @Override
    public void put(String key, byte[] data, String contentType) {
        s3.putObject(b -> b.bucket(bucket).key(key).contentType(contentType).contentLength((long) data.length)
                .overrideConfiguration(o -> timeouts(o, data.length)), RequestBody.fromBytes(data));
    }

    @Override
    public void put(String key, java.nio.file.Path file, long size, String contentType) {
        s3.putObject(b -> b.bucket(bucket).key(key).contentType(contentType).contentLength(size)
                .overrideConfiguration(o -> timeouts(o, size)), RequestBody.fromFile(file));
    }

    /**
     * A put's timeouts scaled to its size (issue 33): the client's 10 s per attempt and 30 s per call,
     * plus 1 s per MiB (at least 1 MiB/s), so one tenant's 50 MiB original is not a timeout, a
     * failure its breaker would count, where a small object's 10 s would be.
     */
    static void timeouts(software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration.Builder o, long bytes) {
        Duration perSize = Duration.ofSeconds(Math.max(0, bytes) >> 20);
        o.apiCallAttemptTimeout(Duration.ofSeconds(10).plus(perSize)).apiCallTimeout(Duration.ofSeconds(30).plus(perSize.multipliedBy(3)));
    }

    @Override
    public byte[] get(String key, long maxBytes) {
        try (InputStream in = open(key)) {
            byte[] data = in.readNBytes((int) Math.min(maxBytes + 1, Integer.MAX_VALUE - 8));
            if (data.length > maxBytes) throw new ObjectTooLargeException(key, maxBytes);
            return data;
        } catch (java.io.IOException e) {
            // The body broke off or stalled mid-read: S3's failure (an outage), not the object's.
            throw software.amazon.awssdk.core.exception.SdkClientException.create("reading " + key + ": " + e.getMessage(), e);
        }
    }

    /**
     * Deletes every object whose key starts with {@code prefix} (list, then batch deletes of up to
     * 1,000 keys). For tools and benchmarks that clean up after themselves; not on the request path.
     *
     * @return the number of objects deleted
     * @throws IllegalArgumentException for a blank prefix (that would empty the bucket)
     */
    public int deletePrefix(String prefix) {
        if (prefix == null || prefix.isBlank()) throw new IllegalArgumentException("prefix must not be blank");
        int deleted = 0;
        for (var page : s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix).maxKeys(1000))) {
            var ids = page.contents().stream()
                    .map(o -> software.amazon.awssdk.services.s3.model.ObjectIdentifier.builder().key(o.key()).build()).toList();
            if (ids.isEmpty()) continue;
            s3.deleteObjects(b -> b.bucket(bucket).delete(d -> d.objects(ids).quiet(true)));
            deleted += ids.size();
        }
        return deleted;
    }

    @Override
    public InputStream open(String key) {
        try {
            return s3.getObject(b -> b.bucket(bucket).key(key));
        } catch (NoSuchKeyException e) {
            throw new ObjectNotFoundException(key);
        }
    }

    @Override
    public void ensureBucket() {
        try {
            s3.headBucket(b -> b.bucket(bucket));
        } catch (NoSuchBucketException e) {
            createBucket();
        } catch (S3Exception e) {
            if (e.statusCode() != 404) throw e;
            createBucket();
        }
    }

    private void createBucket() {
        try {
            s3.createBucket(b -> b.bucket(bucket));
        } catch (BucketAlreadyOwnedByYouException e) {
            // another node created it first
        }
    }

    @Override
    public boolean ping() {
        try {
            s3.headBucket(b -> b.bucket(bucket));
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public void close() {
        s3.close();
        http.close();
    }
}
