package com.fairpix.core.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.json.Json;
import org.junit.jupiter.api.Test;

class TenantPatchTest {
    private final Tenant acme = Tenant.withDefaults("acme");

    @Test
    void aPatchChangesOnlyTheGivenMembersAndIncrementsTheVersion() throws Exception {
        Tenant patched = acme.patched(Json.mapper().readTree("{\"weight\":4,\"maxUploadBytes\":1000,\"allowedFormats\":[\"png\"]}"));

        assertThat(patched.weight()).isEqualTo(4.0);
        assertThat(patched.maxUploadBytes()).isEqualTo(1000);
        assertThat(patched.allowedFormats()).containsExactly("png");
        assertThat(patched.rate()).isEqualTo(acme.rate());
        assertThat(patched.state()).isEqualTo(acme.state());
        assertThat(patched.version()).isEqualTo(acme.version() + 1);
    }

    @Test
    void everyProblemOfAPatchIsListed() throws Exception {
        assertThatThrownBy(() -> acme.patched(Json.mapper().readTree("{\"weight\":0,\"rate\":-1,\"allowedFormats\":[\"jp2\"],\"pool\":\"tpu\"}")))
                .isInstanceOfSatisfying(Tenant.InvalidTenantException.class, e -> assertThat(e.errors())
                        .contains("weight must be > 0", "rate must be > 0 tokens/s", "pool must be cpu or gpu")
                        .anyMatch(s -> s.startsWith("allowedFormats")));
    }

    @Test
    void stateIdAndVersionCannotBePatched() throws Exception {
        assertThatThrownBy(() -> acme.patched(Json.mapper().readTree("{\"state\":\"ACTIVE\",\"id\":\"other\",\"version\":99}")))
                .isInstanceOfSatisfying(Tenant.InvalidTenantException.class, e -> assertThat(e.errors()).hasSize(3));
    }

    @Test
    void tenantsWithTheDefaultFormatsShareOneSet() {
        assertThat(Tenant.withDefaults("a").allowedFormats()).isSameAs(Tenant.withDefaults("b").allowedFormats());
    }
}
