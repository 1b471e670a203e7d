package com.fairpix.webhooks.internal;

import com.fairpix.webhooks.UrlGuard;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.util.Timeout;

/**
 * Webhook attempts over HTTP(S), connecting only to the addresses the {@link UrlGuard} checked:
 * the client's {@link DnsResolver} answers with the addresses pinned for the calling attempt and
 * nothing else (DNS pinning), while TLS still uses the URL's host name for SNI and certificate
 * verification. Redirects are never followed, nothing is retried inside an attempt, the connect
 * times out after 5 s, the whole attempt after 15 s, and at most 64 KiB of the response is read
 * (then the connection is dropped, not drained: we never keep bodies).
 *
 * <p>One client for every attempt, with one bounded connection pool ({@code maxConnections} in
 * all, {@code perRoute} per host and port: the dispatcher sets it to the total, since one host may
 * serve several tenants' endpoints and those are capped by {@link EndpointLimits}); a pooled connection was opened to an address a check allowed,
 * lives at most {@link #CONNECTION_TTL} and idles at most {@link #CONNECTION_IDLE}.
 *
 * <p>Time comes in: {@code nanoTime} (monotonic) measures each attempt, {@code clock} turns a
 * {@code Retry-After} HTTP-date into a wait.
 */
public final class WebhookSender implements Transport, AutoCloseable {
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration TOTAL_TIMEOUT = Duration.ofSeconds(15);
    public static final int MAX_RESPONSE_BYTES = 64 * 1024;
    static final Duration CONNECTION_TTL = Duration.ofSeconds(60);
    static final Duration CONNECTION_IDLE = Duration.ofSeconds(30);

    /** The checked addresses of the attempt running on this thread (the classic client connects on the caller's thread). */
    private static final ThreadLocal<InetAddress[]> PINNED = new ThreadLocal<>();

    private final Duration totalTimeout;
    private final Clock clock;
    private final LongSupplier nanoTime;
    private final CloseableHttpClient client;
    private final PoolingHttpClientConnectionManager connections;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("fairpix-webhook-timeout").unstarted(r));

    /**
     * @param totalTimeout   the whole attempt's deadline (15 s in production)
     * @param tls            trust material for tests with their own CA; null for the JVM's default trust store
     * @param maxConnections pooled connections in all
     * @param perRoute       pooled connections per host and port
     * @param clock          wall time, for {@code Retry-After} dates
     * @param nanoTime       a monotonic nanosecond source, for each attempt's duration
     */
    public WebhookSender(Duration totalTimeout, javax.net.ssl.SSLContext tls, int maxConnections, int perRoute, Clock clock, LongSupplier nanoTime) {
        this.totalTimeout = totalTimeout;
        this.clock = clock;
        this.nanoTime = nanoTime;
        DnsResolver resolver = new DnsResolver() {
            @Override
            public InetAddress[] resolve(String host) throws java.net.UnknownHostException {
                InetAddress[] pinned = PINNED.get();
                // Never the system resolver: an address nobody checked is never connected to.
                if (pinned == null) throw new java.net.UnknownHostException(host + ": no checked address for this attempt");
                return pinned.clone();
            }

            @Override
            public String resolveCanonicalHostname(String host) {
                return host;
            }
        };
        PoolingHttpClientConnectionManagerBuilder builder = PoolingHttpClientConnectionManagerBuilder.create();
        // The default TLS strategy sends the URL's host as SNI and verifies the certificate against it,
        // whatever address the (pinned) resolver returned.
        if (tls != null) builder.setTlsSocketStrategy(new org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy(tls));
        this.connections = builder
                .setDnsResolver(resolver)
                .setMaxConnTotal(maxConnections)
                .setMaxConnPerRoute(perRoute)
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(Timeout.of(CONNECT_TIMEOUT))
                        .setSocketTimeout(Timeout.of(totalTimeout))
                        .setTimeToLive(org.apache.hc.core5.util.TimeValue.of(CONNECTION_TTL))
                        .build())
                .build();
        this.client = HttpClients.custom()
                .setConnectionManager(connections)
                .evictExpiredConnections()
                .evictIdleConnections(org.apache.hc.core5.util.TimeValue.of(CONNECTION_IDLE))
                .disableRedirectHandling()
                .disableAutomaticRetries()
                .disableCookieManagement()
                .disableAuthCaching()
                .disableContentCompression()
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setResponseTimeout(Timeout.of(totalTimeout))
                        // A full pool waits at most this long for a connection; the attempt then fails, not the thread.
                        .setConnectionRequestTimeout(Timeout.of(CONNECT_TIMEOUT))
                        .build())
                .build();
    }

    /** POSTs {@code body} with {@code headers} to the checked target. Never throws for network trouble. */
    @Override
    public Outcome send(UrlGuard.Checked target, Map<String, String> headers, byte[] body) {
        long start = nanoTime.getAsLong();
        AtomicBoolean timedOut = new AtomicBoolean();
        HttpPost post = new HttpPost(target.uri());
        headers.forEach(post::setHeader);
        post.setEntity(new ByteArrayEntity(body, ContentType.APPLICATION_JSON));
        PINNED.set(target.addresses().toArray(InetAddress[]::new));
        ScheduledFuture<?> deadline = timer.schedule(() -> {
            timedOut.set(true);
            post.cancel();
        }, totalTimeout.toMillis(), TimeUnit.MILLISECONDS);
        try (ClassicHttpResponse response = client.executeOpen(null, post, null)) {
            if (response.getEntity() != null) {
                try (InputStream in = response.getEntity().getContent()) {
                    // More than we read: drop the connection rather than drain a stream that may never end.
                    if (!drain(in)) post.cancel();
                }
            }
            Header ra = response.getFirstHeader("Retry-After");
            return new Outcome(response.getCode(), null, ra == null ? null : retryAfter(ra.getValue(), clock.instant()), elapsed(start));
        } catch (IOException | RuntimeException e) {
            String error = timedOut.get() || e instanceof java.net.SocketTimeoutException || e instanceof org.apache.hc.client5.http.ConnectTimeoutException
                    ? "timeout" : e.getClass().getSimpleName();
            return new Outcome(0, error, null, elapsed(start));
        } finally {
            deadline.cancel(false);
            PINNED.remove();
        }
    }

    /** Connections pooled now, leased and idle (tests). */
    int pooledConnections() {
        var stats = connections.getTotalStats();
        return stats.getLeased() + stats.getAvailable();
    }

    /** Reads at most 64 KiB; true when that was the whole body (the connection can be reused). */
    private static boolean drain(InputStream in) throws IOException {
        byte[] buf = new byte[8192];
        int total = 0;
        int n;
        // Read at most 64 KiB so a hostile receiver cannot stream forever; the rest is dropped with the connection.
        while (total < MAX_RESPONSE_BYTES && (n = in.read(buf, 0, Math.min(buf.length, MAX_RESPONSE_BYTES - total))) > 0) total += n;
        return total < MAX_RESPONSE_BYTES || in.read() < 0;
    }

    private Duration elapsed(long startNanos) {
        return Duration.ofNanos(nanoTime.getAsLong() - startNanos);
    }

    /** Parses {@code Retry-After}: delta-seconds or an HTTP-date (RFC 9110 §10.2.3), as a wait from {@code now}; null when unreadable. */
    static Duration retryAfter(String value, Instant now) {
        String v = value.trim();
        try {
            long s = Long.parseLong(v);
            return s < 0 ? null : Duration.ofSeconds(s);
        } catch (NumberFormatException e) {
            try {
                Duration d = Duration.between(now, ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
                return d.isNegative() ? Duration.ZERO : d;
            } catch (java.time.format.DateTimeParseException e2) {
                return null;
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            client.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
