package com.fairpix.autoscaler.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fairpix.autoscaler.Autoscaler;
import com.fairpix.autoscaler.actuate.internal.KubernetesActuator;
import com.fairpix.autoscaler.policy.Decision;
import com.fairpix.autoscaler.policy.PolicyConfig;
import com.fairpix.autoscaler.policy.Reason;
import com.fairpix.autoscaler.signal.PoolSignals;
import com.fairpix.core.time.ManualClock;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Kubernetes actuator against the fabric8 mock API server in CRUD mode (a stateful fake API server). */
@EnableKubernetesMockClient(crud = true)
class KubernetesActuatorTest {
    static final String NS = "fairpix";

    KubernetesClient client; // injected by the extension

    @BeforeEach
    void workerDeployments() {
        for (String pool : new String[] {"cpu", "gpu"}) {
            client.apps().deployments().inNamespace(NS).resource(deployment("fairpix-worker-" + pool, 1)).create();
        }
    }

    @Test
    void readsAndSetsTheReplicasOfThePoolsDeployment() {
        KubernetesActuator actuator = new KubernetesActuator(client, NS, "fairpix-worker-{pool}");
        assertThat(actuator.replicas("cpu")).isEqualTo(1);

        actuator.scale("cpu", 5);

        assertThat(actuator.replicas("cpu")).isEqualTo(5);
        Deployment stored = client.apps().deployments().inNamespace(NS).withName("fairpix-worker-cpu").get();
        assertThat(stored.getSpec().getReplicas()).isEqualTo(5);
        // the other pool's Deployment is untouched
        assertThat(actuator.replicas("gpu")).isEqualTo(1);
        // and the pod template is left alone: scaling is not a rollout
        assertThat(stored.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage()).isEqualTo("fairpix:dev");
    }

    @Test
    void aMissingDeploymentIsAnActuatorErrorNamingTheSettings() {
        KubernetesActuator actuator = new KubernetesActuator(client, NS, "no-such-{pool}");
        assertThatThrownBy(() -> actuator.replicas("cpu"))
                .isInstanceOf(Actuator.ActuatorException.class)
                .hasMessageContaining("fairpix/no-such-cpu")
                .hasMessageContaining("FAIRPIX_AUTOSCALER_K8S_DEPLOYMENT");
    }

    @Test
    void theAutoscalerScalesTheDeploymentOutOnBacklogAndHoldsOnAFailedReading() {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-30T00:00:00Z"));
        Map<Integer, Long> lag = new HashMap<>();
        for (int p = 0; p < 8; p++) lag.put(p, 500L);
        boolean[] brokerDown = {false};
        Autoscaler autoscaler = new Autoscaler(Map.of("cpu", PolicyConfig.defaults("cpu")),
                (pool, now) -> brokerDown[0] ? PoolSignals.failed(pool, now, "down") : PoolSignals.of(pool, now, 0, lag, 8, Map.of()),
                new KubernetesActuator(client, NS, "fairpix-worker-{pool}"), clock, new SimpleMeterRegistry());

        Decision first = autoscaler.evaluate("cpu");
        assertThat(first.reason()).isEqualTo(Reason.SCALE_OUT);
        assertThat(client.apps().deployments().inNamespace(NS).withName("fairpix-worker-cpu").get().getSpec().getReplicas()).isEqualTo(3);

        brokerDown[0] = true;
        clock.advance(java.time.Duration.ofSeconds(20));
        assertThat(autoscaler.evaluate("cpu").reason()).isEqualTo(Reason.HOLD_FAILED_READING);
        assertThat(client.apps().deployments().inNamespace(NS).withName("fairpix-worker-cpu").get().getSpec().getReplicas()).isEqualTo(3);

        brokerDown[0] = false;
        assertThat(autoscaler.evaluate("cpu").desired()).isEqualTo(5);
        assertThat(client.apps().deployments().inNamespace(NS).withName("fairpix-worker-cpu").get().getSpec().getReplicas()).isEqualTo(5);
    }

    static Deployment deployment(String name, int replicas) {
        return new DeploymentBuilder()
                .withNewMetadata().withName(name).withNamespace(NS).addToLabels("app", name).endMetadata()
                .withNewSpec().withReplicas(replicas)
                .withNewSelector().addToMatchLabels("app", name).endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata()
                .withNewSpec().addNewContainer().withName("worker").withImage("fairpix:dev").endContainer().endSpec()
                .endTemplate().endSpec().build();
    }
}
