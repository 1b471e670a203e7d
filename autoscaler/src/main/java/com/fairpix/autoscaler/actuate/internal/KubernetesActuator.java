package com.fairpix.autoscaler.actuate.internal;

import com.fairpix.autoscaler.actuate.Actuator;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.RollableScalableResource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scales one worker Deployment per pool through the Kubernetes API (the {@code scale}
 * subresource, which is all the RBAC in deploy/kubernetes/autoscaler.yaml allows besides reading).
 * Replicas reported are the Deployment's {@code spec.replicas}: what the cluster is converging to.
 */
public final class KubernetesActuator implements Actuator {
    private static final Logger log = LoggerFactory.getLogger(KubernetesActuator.class);

    private final KubernetesClient client;
    private final String namespace;
    private final String deploymentPattern;

    /** @param deploymentPattern Deployment name with {@code {pool}} in it, e.g. {@code fairpix-worker-{pool}} */
    public KubernetesActuator(KubernetesClient client, String namespace, String deploymentPattern) {
        this.client = client;
        this.namespace = namespace;
        this.deploymentPattern = deploymentPattern;
    }

    public String deployment(String pool) {
        return deploymentPattern.replace("{pool}", pool);
    }

    @Override
    public String kind() { return "kubernetes"; }

    @Override
    public int replicas(String pool) {
        Deployment d = get(pool);
        Integer r = d.getSpec() == null ? null : d.getSpec().getReplicas();
        return r == null ? 1 : r; // the API's default for an unset replicas field
    }

    @Override
    public void scale(String pool, int replicas) {
        try {
            resource(pool).scale(replicas);
            log.info("scaled Deployment {}/{} to {} replicas", namespace, deployment(pool), replicas);
        } catch (KubernetesClientException e) {
            throw new ActuatorException("cannot scale Deployment " + namespace + "/" + deployment(pool) + ": " + e.getMessage(), e);
        }
    }

    @Override
    public List<Map<String, Object>> details(String pool) {
        Deployment d = get(pool);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("deployment", namespace + "/" + deployment(pool));
        m.put("specReplicas", d.getSpec() == null ? null : d.getSpec().getReplicas());
        m.put("readyReplicas", d.getStatus() == null ? null : d.getStatus().getReadyReplicas());
        return List.of(m);
    }

    private Deployment get(String pool) {
        Deployment d;
        try {
            d = resource(pool).get();
        } catch (KubernetesClientException e) {
            throw new ActuatorException("cannot read Deployment " + namespace + "/" + deployment(pool) + ": " + e.getMessage(), e);
        }
        if (d == null) {
            throw new ActuatorException("Deployment " + namespace + "/" + deployment(pool) + " does not exist; apply deploy/kubernetes/ or set "
                    + "FAIRPIX_AUTOSCALER_K8S_NAMESPACE / FAIRPIX_AUTOSCALER_K8S_DEPLOYMENT", null);
        }
        return d;
    }

    private RollableScalableResource<Deployment> resource(String pool) {
        return client.apps().deployments().inNamespace(namespace).withName(deployment(pool));
    }

    @Override
    public void close() {
        client.close();
    }
}
