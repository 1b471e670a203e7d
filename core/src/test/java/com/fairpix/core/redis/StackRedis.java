package com.fairpix.core.redis;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/** The Redis of {@code scripts/stack} for an integration test. */
public final class StackRedis {
    private StackRedis() {}

    /**
     * The URL in {@code FAIRPIX_REDIS_URL} (a single Redis or a cluster's).
     *
     * @throws org.opentest4j.TestAbortedException when it is not set (the test is skipped)
     * @throws org.opentest4j.AssertionFailedError when it is not set and {@code FAIRPIX_REQUIRE_STACK} is
     */
    public static String url() {
        String url = System.getenv("FAIRPIX_REDIS_URL");
        if (url == null) {
            String why = "FAIRPIX_REDIS_URL is not set: run scripts/test (or scripts/stack up and source .fairpix/stack.env)";
            if (System.getenv("FAIRPIX_REQUIRE_STACK") != null) Assertions.fail(why);
            Assumptions.abort(why);
        }
        return url;
    }
}
