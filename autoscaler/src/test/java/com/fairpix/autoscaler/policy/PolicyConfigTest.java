package com.fairpix.autoscaler.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.core.config.FairpixConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A policy's members are held to their settings' bounds; max >= min replicas is refused on load and from the API. */
class PolicyConfigTest {
    @Test
    void everyLoadRefusesFewerMostReplicasThanFewest() {
        assertThatThrownBy(() -> FairpixConfig.load(Map.of("FAIRPIX_AUTOSCALER_MIN_REPLICAS", "5", "FAIRPIX_AUTOSCALER_MAX_REPLICAS", "2"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("FAIRPIX_AUTOSCALER_MAX_REPLICAS must be >= FAIRPIX_AUTOSCALER_MIN_REPLICAS");
    }

    @Test
    void aPolicyFromTheApiIsHeldToTheSettingsBoundsNamingItsMembers() {
        PolicyConfig cpu = PolicyConfig.defaults("cpu");

        assertThat(cpu.problems()).isEmpty();
        assertThat(cpu.withBounds(-1, 8).problems()).containsExactly("minReplicas must be >= 0");
        assertThat(cpu.withBounds(3, 2).problems()).containsExactly("maxReplicas must be >= minReplicas");
        assertThat(cpu.withTarget(0).problems()).containsExactly("targetBacklogPerReplica must be > 0");
        assertThat(cpu.withScaleIn(-1, 0).problems()).containsExactly("stabilizationSeconds must be >= 0");
    }

    @Test
    void theStepFollowsThePool() {
        FairpixConfig config = FairpixConfig.load(Map.of("FAIRPIX_AUTOSCALER_STEP_GPU", "3"), Map.of());

        assertThat(PolicyConfig.from(config, "gpu").scaleOutStep()).isEqualTo(3);
        assertThat(PolicyConfig.from(config, "cpu").scaleOutStep()).isEqualTo(2);
    }
}
