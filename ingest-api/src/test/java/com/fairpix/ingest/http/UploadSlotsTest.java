package com.fairpix.ingest.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fairpix.core.http.ApiProblem;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UploadSlotsTest {
    @Test
    void aTenantAtItsLimitGets429WhileOthersStillUpload() {
        UploadSlots slots = new UploadSlots(10, 2);
        UploadSlots.Slot a1 = slots.acquire("a");
        UploadSlots.Slot a2 = slots.acquire("a");
        ApiProblem p = catchThrowableOfType(ApiProblem.class, () -> slots.acquire("a"));
        assertThat(p.status()).isEqualTo(429);
        assertThat(p.slug()).isEqualTo("too-many-uploads");
        assertThat(p.headers()).containsEntry("Retry-After", "1");
        slots.acquire("b").close();
        a1.close();
        a1.close(); // twice is once
        assertThat(slots.inFlight("a")).isEqualTo(1);
        slots.acquire("a").close();
        a2.close();
        assertThat(slots.tenantsTracked()).as("no counter is kept for a tenant with nothing in flight").isZero();
    }

    @Test
    void aFullNodeIs503Overloaded() {
        UploadSlots slots = new UploadSlots(3, 2);
        List<UploadSlots.Slot> held = new ArrayList<>();
        held.add(slots.acquire("a"));
        held.add(slots.acquire("b"));
        held.add(slots.acquire("c"));
        ApiProblem p = catchThrowableOfType(ApiProblem.class, () -> slots.acquire("d"));
        assertThat(p.status()).isEqualTo(503);
        assertThat(p.slug()).isEqualTo("overloaded");
        assertThat(p.extensions()).containsEntry("reason", "uploads-in-flight");
        assertThat(slots.inFlight("d")).as("the refused upload holds no tenant slot").isZero();
        held.forEach(UploadSlots.Slot::close);
        slots.acquire("d").close();
    }
}
