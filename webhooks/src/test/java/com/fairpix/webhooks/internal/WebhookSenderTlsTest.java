package com.fairpix.webhooks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.webhooks.UrlGuard;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.FileInputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pinned connection still does TLS by name: the sender connects to the checked address
 * (127.0.0.1 here) while verifying the certificate against the URL's host. A real HTTPS server
 * holds a certificate for {@code hooks.test} only.
 */
class WebhookSenderTlsTest {
    @TempDir static Path dir;
    static HttpsServer server;
    static SSLContext clientTls;
    static final AtomicInteger hits = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        Path ks = dir.resolve("server.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(keytool, "-genkeypair", "-alias", "hooks", "-keyalg", "EC", "-dname", "CN=hooks.test",
                "-ext", "san=dns:hooks.test", "-validity", "2", "-storetype", "PKCS12", "-keystore", ks.toString(),
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        assertThat(p.waitFor()).as(new String(p.getInputStream().readAllBytes())).isZero();
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (var in = new FileInputStream(ks.toFile())) {
            store.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, "changeit".toCharArray());
        SSLContext serverTls = SSLContext.getInstance("TLS");
        serverTls.init(kmf.getKeyManagers(), null, null);
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
        server.setHttpsConfigurator(new HttpsConfigurator(serverTls));
        server.createContext("/", ex -> {
            hits.incrementAndGet();
            ex.getRequestBody().readAllBytes();
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        server.start();
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        clientTls = SSLContext.getInstance("TLS");
        clientTls.init(null, tmf.getTrustManagers(), null);
    }

    @AfterAll
    static void stop() {
        server.stop(0);
    }

    private static UrlGuard.Checked pinned(String host) throws Exception {
        URI uri = URI.create("https://" + host + ":" + server.getAddress().getPort() + "/hook");
        return new UrlGuard.Checked(uri, host, uri.getPort(), List.of(InetAddress.getByName("127.0.0.1")));
    }

    @Test
    void aPinnedAddressIsReachedWithTheHostNameVerifiedOverTls() throws Exception {
        try (WebhookSender sender = new WebhookSender(Duration.ofSeconds(5), clientTls, 256, 256, Clock.systemUTC(), System::nanoTime)) {
            WebhookSender.Outcome o = sender.send(pinned("hooks.test"), Map.of("webhook-id", "evt_1"), "{}".getBytes());
            assertThat(o.status()).as(String.valueOf(o.error())).isEqualTo(204);
        }
    }

    @Test
    void aCertificateForAnotherNameIsRefusedEvenAtThePinnedAddress() throws Exception {
        int before = hits.get();
        try (WebhookSender sender = new WebhookSender(Duration.ofSeconds(5), clientTls, 256, 256, Clock.systemUTC(), System::nanoTime)) {
            WebhookSender.Outcome o = sender.send(pinned("other.test"), Map.of(), "{}".getBytes());
            assertThat(o.status()).isZero();
            assertThat(o.error()).containsIgnoringCase("SSL");
        }
        assertThat(hits.get()).isEqualTo(before);
    }

    @Test
    void retryAfterIsReadAsSecondsOrAnHttpDate() {
        java.time.Instant now = java.time.Instant.parse("2026-01-31T12:00:00Z");
        assertThat(WebhookSender.retryAfter("120", now)).isEqualTo(Duration.ofSeconds(120));
        assertThat(WebhookSender.retryAfter("soon", now)).isNull();
        assertThat(WebhookSender.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now)).isEqualTo(Duration.ZERO);
        assertThat(WebhookSender.retryAfter("Sat, 31 Jan 2026 12:01:30 GMT", now)).as("a date is a wait from now").isEqualTo(Duration.ofSeconds(90));
    }
}
