package com.fairpix.webhooks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.webhooks.UrlGuard;
import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** One client, one bounded pool: endpoints that rotate or misbehave cannot grow what the sender holds. */
class WebhookSenderPoolTest {

    static HttpServer server(Set<String> peers, boolean endless) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.createContext("/hook", ex -> {
            peers.add(ex.getRemoteAddress().toString());
            ex.getRequestBody().readAllBytes();
            if (endless) {
                ex.sendResponseHeaders(200, 0); // chunked, never ends by itself
                try (OutputStream out = ex.getResponseBody()) {
                    byte[] junk = new byte[16 * 1024];
                    while (true) out.write(junk);
                } catch (java.io.IOException gone) {
                    // the sender dropped the connection
                }
            } else {
                ex.sendResponseHeaders(204, -1);
            }
            ex.close();
        });
        s.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        s.start();
        return s;
    }

    static UrlGuard.Checked target(HttpServer s) {
        URI uri = URI.create("http://hooks.test:" + s.getAddress().getPort() + "/hook");
        return new UrlGuard.Checked(uri, "hooks.test", uri.getPort(), List.of(InetAddress.getLoopbackAddress()));
    }

    @Test
    void attemptsToOneEndpointReuseItsConnections() throws Exception {
        Set<String> peers = ConcurrentHashMap.newKeySet();
        HttpServer s = server(peers, false);
        try (WebhookSender sender = new WebhookSender(Duration.ofSeconds(5), null, 8, 2, Clock.systemUTC(), System::nanoTime)) {
            for (int i = 0; i < 40; i++) assertThat(sender.send(target(s), Map.of(), "{}".getBytes()).status()).isEqualTo(204);
            assertThat(peers).as("client ports seen by the server").hasSizeLessThanOrEqualTo(2);
            assertThat(sender.pooledConnections()).isLessThanOrEqualTo(2);
        } finally {
            s.stop(0);
        }
    }

    @Test
    void rotatingPortsNeverPoolMoreThanTheLimit() throws Exception {
        List<HttpServer> servers = new ArrayList<>();
        Set<String> peers = ConcurrentHashMap.newKeySet();
        try (WebhookSender sender = new WebhookSender(Duration.ofSeconds(5), null, 8, 2, Clock.systemUTC(), System::nanoTime)) {
            for (int i = 0; i < 30; i++) {
                HttpServer s = server(peers, false);
                servers.add(s);
                assertThat(sender.send(target(s), Map.of(), "{}".getBytes()).status()).isEqualTo(204);
                assertThat(sender.pooledConnections()).isLessThanOrEqualTo(8);
            }
        } finally {
            servers.forEach(s -> s.stop(0));
        }
    }

    @Test
    void anEndlessResponseIsCutAfter64KiB() throws Exception {
        Set<String> peers = ConcurrentHashMap.newKeySet();
        HttpServer s = server(peers, true);
        try (WebhookSender sender = new WebhookSender(Duration.ofSeconds(10), null, 8, 2, Clock.systemUTC(), System::nanoTime)) {
            long t0 = System.nanoTime();
            WebhookSender.Outcome o = sender.send(target(s), Map.of(), "{}".getBytes());
            assertThat(o.status()).isEqualTo(200);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            assertThat(sender.pooledConnections()).as("that connection is not kept").isZero();
        } finally {
            s.stop(0);
        }
    }

    @Test
    void anAttemptWithoutCheckedAddressesConnectsNowhere() throws Exception {
        Set<String> peers = ConcurrentHashMap.newKeySet();
        HttpServer s = server(peers, false);
        try (WebhookSender sender = new WebhookSender(Duration.ofSeconds(5), null, 8, 2, Clock.systemUTC(), System::nanoTime)) {
            URI uri = URI.create("http://localhost:" + s.getAddress().getPort() + "/hook");
            WebhookSender.Outcome o = sender.send(new UrlGuard.Checked(uri, "localhost", uri.getPort(), List.of()), Map.of(), "{}".getBytes());
            assertThat(o.status()).isZero();
            assertThat(peers).isEmpty();
        } finally {
            s.stop(0);
        }
    }
}
