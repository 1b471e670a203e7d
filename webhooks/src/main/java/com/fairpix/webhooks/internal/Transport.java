package com.fairpix.webhooks.internal;

import com.fairpix.webhooks.UrlGuard;
import java.time.Duration;
import java.util.Map;

/** One webhook attempt over the network: {@link WebhookSender} in production, a fake in tests. */
interface Transport {

    /**
     * What came back: the HTTP status (0 when none) or the error class, the response's
     * {@code Retry-After} (null when none), and how long the attempt took.
     */
    record Outcome(int status, String error, Duration retryAfter, Duration elapsed) {
        public boolean succeeded() {
            return status >= 200 && status < 300;
        }
    }

    /** POSTs {@code body} with {@code headers} to the checked target, connecting only to its addresses; never throws for network trouble. */
    Outcome send(UrlGuard.Checked target, Map<String, String> headers, byte[] body);
}
