package com.fairpix.core.resilience;

import com.fairpix.core.storage.InMemoryObjectStore;
import com.fairpix.core.storage.ObjectStore;
import com.fairpix.core.storage.ObjectStoreContract;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

/** Behind a closed breaker the guarded store is the store it guards. */
class GuardedObjectStoreTest extends ObjectStoreContract {
    private final ObjectStore store = new GuardedObjectStore(new InMemoryObjectStore(), CircuitBreaker.ofDefaults("s3"));

    @Override
    protected ObjectStore store() {
        return store;
    }

    @Override
    protected String prefix() {
        return "contract/";
    }
}
