package com.fairpix.core.storage;

/** The test double keeps the contract the S3 store keeps (S3ObjectStoreIT). */
class InMemoryObjectStoreTest extends ObjectStoreContract {
    private final InMemoryObjectStore store = new InMemoryObjectStore();

    @Override
    protected ObjectStore store() {
        return store;
    }

    @Override
    protected String prefix() {
        return "contract/";
    }
}
