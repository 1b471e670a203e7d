package com.fairpix.core.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.ZoneId;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

/** The S3 key layout (docs/architecture.md): dated originals, deterministic results, one prefix per tenant. */
class StorageKeysTest {
    private static final String JOB = "0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b";

    @Test
    void originalIsDatedWithZeroPaddedMonthAndDay() {
        String key = StorageKeys.original("t42", JOB, "jpg", Instant.parse("2025-03-07T10:15:30Z"));

        assertThat(key).isEqualTo("tenants/t42/originals/2025/03/07/" + JOB + ".jpg");
    }

    @Test
    void originalIsDatedInUtcWhateverTheLocalTimeZone() {
        // 23:30 UTC on New Year's Eve is already 2025 in Berlin and Tokyo.
        Instant instant = ZonedDateTime.of(2025, 1, 1, 0, 30, 0, 0, ZoneId.of("Europe/Berlin")).toInstant();
        TimeZone saved = TimeZone.getDefault();
        try {
            TimeZone.setDefault(TimeZone.getTimeZone("Asia/Tokyo"));

            assertThat(StorageKeys.original("acme", JOB, "png", instant)).isEqualTo("tenants/acme/originals/2024/12/31/" + JOB + ".png");
        } finally {
            TimeZone.setDefault(saved);
        }
    }

    @Test
    void resultKeyDependsOnlyOnTenantJobVariantAndExtension() {
        String first = StorageKeys.result("acme", JOB, "thumb", "webp");
        String again = StorageKeys.result("acme", JOB, "thumb", "webp");

        assertThat(first).isEqualTo("tenants/acme/results/" + JOB + "/thumb.webp");
        assertThat(again).as("re-processing overwrites rather than duplicates").isEqualTo(first);
        assertThat(StorageKeys.result("acme", JOB, "big", "webp")).isNotEqualTo(first);
    }

    @Test
    void everyKeyOfATenantLivesUnderItsPrefix() {
        String prefix = StorageKeys.tenantPrefix("acme");

        assertThat(prefix).isEqualTo("tenants/acme/");
        assertThat(StorageKeys.original("acme", JOB, "jpg", Instant.EPOCH)).startsWith(prefix);
        assertThat(StorageKeys.result("acme", JOB, "thumb", "jpg")).startsWith(prefix);
    }

    @Test
    void aTenantsPrefixDoesNotCoverATenantWhoseIdExtendsIt() {
        String prefixOfT1 = StorageKeys.tenantPrefix("t1");

        assertThat(StorageKeys.result("t10", JOB, "thumb", "jpg")).doesNotStartWith(prefixOfT1);
        assertThat(StorageKeys.original("t1-b", JOB, "jpg", Instant.EPOCH)).doesNotStartWith(prefixOfT1);
    }

    @Test
    void aKeyIsOwnedOnlyUnderItsTenantsPrefixAndWithoutDotDot() {
        assertThat(StorageKeys.ownedBy("t1", StorageKeys.result("t1", JOB, "thumb", "jpg"))).isTrue();
        assertThat(StorageKeys.ownedBy("t1", StorageKeys.result("t10", JOB, "thumb", "jpg"))).as("a tenant whose id extends it").isFalse();
        assertThat(StorageKeys.ownedBy("t1", "tenants/t1/../t2/originals/x.jpg")).as("climbing out").isFalse();
        assertThat(StorageKeys.ownedBy("t1", "other/t1/x.jpg")).isFalse();
        assertThat(StorageKeys.ownedBy("t1", null)).isFalse();
    }
}
