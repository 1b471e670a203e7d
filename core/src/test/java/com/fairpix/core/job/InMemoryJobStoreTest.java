package com.fairpix.core.job;

/** The job store contract on the in-memory store the other modules' unit tests use. */
class InMemoryJobStoreTest extends JobStoreContract {
    private final InMemoryJobStore store = new InMemoryJobStore();

    @Override
    protected JobStore store() {
        return store;
    }
}
