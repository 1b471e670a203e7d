package com.fairpix.webhooks;

/** The delivery store contract on the in-memory store the dispatcher's and admin's unit tests use. */
class InMemoryDeliveryStoreTest extends DeliveryStoreContract {
    private final InMemoryDeliveryStore store = new InMemoryDeliveryStore();

    @Override
    protected DeliveryStore store() {
        return store;
    }
}
