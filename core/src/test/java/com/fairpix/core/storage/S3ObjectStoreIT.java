package com.fairpix.core.storage;

import com.fairpix.core.config.FairpixConfig;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/**
 * The object store contract on the S3 of {@code scripts/stack} (S3Proxy, FAIRPIX_S3_*): the
 * in-memory store the unit tests use behaves as this one does. Keys go under a prefix of this
 * run's, deleted afterwards.
 */
class S3ObjectStoreIT extends ObjectStoreContract {
    static S3ObjectStore store;
    static final String PREFIX = "it/object-store-contract-" + UUID.randomUUID() + "/";

    @BeforeAll
    static void connect() {
        if (System.getenv("FAIRPIX_S3_ENDPOINT") == null) {
            String why = "FAIRPIX_S3_ENDPOINT is not set: run scripts/test (or scripts/stack up and source .fairpix/stack.env)";
            if (System.getenv("FAIRPIX_REQUIRE_STACK") != null) Assertions.fail(why);
            Assumptions.abort(why);
        }
        store = S3ObjectStore.from(FairpixConfig.fromEnvironment());
        store.ensureBucket();
    }

    @AfterAll
    static void close() {
        if (store == null) return;
        store.deletePrefix(PREFIX);
        store.close();
    }

    @Override
    protected ObjectStore store() {
        return store;
    }

    @Override
    protected String prefix() {
        return PREFIX;
    }
}
