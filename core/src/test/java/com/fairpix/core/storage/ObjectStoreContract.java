package com.fairpix.core.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every {@link ObjectStore} does, run on each implementation: a subclass hands over the store
 * and a key prefix of its own (a real bucket is shared with other tests and runs).
 */
public abstract class ObjectStoreContract {
    /** The store under test, its bucket ensured. */
    protected abstract ObjectStore store();

    /** Where this run's keys go, ending in {@code /}. */
    protected abstract String prefix();

    @TempDir Path dir;

    private String key(String name) {
        return prefix() + name;
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void anObjectPutIsReadBackWhole() {
        byte[] data = bytes(1000, 1);
        store().put(key("a.jpg"), data, "image/jpeg");
        assertThat(store().get(key("a.jpg"), 1000)).isEqualTo(data);
    }

    @Test
    void anObjectIsOpenedAsAStream() throws Exception {
        // Larger than one read buffer of the SDK or a pipe.
        byte[] data = bytes(300_000, 2);
        store().put(key("big.png"), data, "image/png");
        try (InputStream in = store().open(key("big.png"))) {
            assertThat(in.readAllBytes()).isEqualTo(data);
        }
    }

    @Test
    void aPutReplacesTheObjectUnderItsKey() {
        store().put(key("v"), bytes(500, 3), "image/jpeg");
        byte[] second = bytes(20, 4);
        store().put(key("v"), second, "image/webp");
        assertThat(store().get(key("v"), 1000)).isEqualTo(second);
    }

    @Test
    void theStoredBytesAreACopyOfWhatWasPut() {
        byte[] data = bytes(10, 5);
        byte[] kept = data.clone();
        store().put(key("copy"), data, "application/octet-stream");
        data[0]++;
        byte[] read = store().get(key("copy"), 10);
        read[1]++;
        assertThat(store().get(key("copy"), 10)).isEqualTo(kept);
    }

    @Test
    void anEmptyObjectIsAnObject() {
        store().put(key("empty"), new byte[0], "application/octet-stream");
        assertThat(store().get(key("empty"), 0)).isEmpty();
    }

    @Test
    void aFileIsStoredWithItsBytes() throws Exception {
        byte[] data = bytes(200_000, 6);
        Path file = Files.write(dir.resolve("upload.part"), data);
        store().put(key("from-file"), file, data.length, "image/jpeg");
        assertThat(store().get(key("from-file"), data.length)).isEqualTo(data);
    }

    @Test
    void getRefusesAnObjectLargerThanItsLimitAndReadsOneOfExactlyTheLimit() {
        store().put(key("limit"), bytes(100, 7), "image/jpeg");
        assertThatThrownBy(() -> store().get(key("limit"), 99)).isInstanceOf(ObjectStore.ObjectTooLargeException.class);
        assertThat(store().get(key("limit"), 100)).hasSize(100);
    }

    @Test
    void aMissingKeyIsObjectNotFoundForGetAndOpen() {
        assertThatThrownBy(() -> store().get(key("missing"), 1000)).isInstanceOf(ObjectStore.ObjectNotFoundException.class);
        assertThatThrownBy(() -> store().open(key("missing"))).isInstanceOf(ObjectStore.ObjectNotFoundException.class);
    }

    /**
     * The same name under two prefixes is two objects, and a prefix is no object. (Not asserted: a
     * key that is also the prefix of another, which S3 allows and S3Proxy's file backend refuses
     * with a 500; fairpix's key layouts never make one.)
     */
    @Test
    void theSameNameUnderTwoPrefixesIsTwoObjects() {
        store().put(key("tenants/a/results/j/v.jpg"), new byte[] {1}, "image/jpeg");
        store().put(key("tenants/b/results/j/v.jpg"), new byte[] {2}, "image/jpeg");
        assertThat(store().get(key("tenants/a/results/j/v.jpg"), 1)).containsExactly(1);
        assertThat(store().get(key("tenants/b/results/j/v.jpg"), 1)).containsExactly(2);
        assertThatThrownBy(() -> store().get(key("tenants/a"), 1)).isInstanceOf(ObjectStore.ObjectNotFoundException.class);
    }

    @Test
    void ensureBucketCanBeCalledAgainAndTheStoreAnswersPing() {
        store().ensureBucket();
        store().ensureBucket();
        assertThat(store().ping()).isTrue();
    }
}
