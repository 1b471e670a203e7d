package com.fairpix.autoscaler.actuate;

import com.fairpix.autoscaler.actuate.internal.DryRunActuator;
import com.fairpix.autoscaler.actuate.internal.KubernetesActuator;
import com.fairpix.autoscaler.actuate.internal.LocalProcessActuator;
import com.fairpix.core.config.FairpixConfig;
import com.fairpix.core.config.Setting;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.function.LongSupplier;

/** Builds the actuators; the only way in from outside the package. */
public final class Actuators {
    private Actuators() {}

    /**
     * The actuator {@code autoscaler.actuator} names: {@code kubernetes} (the Deployments of
     * {@code autoscaler.k8s.*}), {@code dry-run} (counts only) or {@code local} (worker processes).
     *
     * @param workerJar the packaged fairpix.jar the local actuator starts workers from (ignored by the others)
     * @param initial   the replicas the dry-run actuator reports before its first scale
     * @param clock     the local actuator's wall clock (when each worker was started)
     * @param nanos     the local actuator's monotonic clock, nanoseconds (how long it waits for workers to stop)
     */
    public static Actuator fromConfig(FairpixConfig config, Path workerJar, int initial, Clock clock, LongSupplier nanos) {
        return switch (config.get(Setting.AUTOSCALER_ACTUATOR).trim()) {
            case "kubernetes" -> new KubernetesActuator(new KubernetesClientBuilder().build(),
                    config.get(Setting.AUTOSCALER_K8S_NAMESPACE), config.get(Setting.AUTOSCALER_K8S_DEPLOYMENT));
            case "dry-run" -> new DryRunActuator(initial);
            default -> {
                String dir = config.get(Setting.AUTOSCALER_LOCAL_LOG_DIR);
                Path logDir = dir.isBlank() ? Path.of(System.getProperty("java.io.tmpdir"), "fairpix-workers") : Path.of(dir);
                yield new LocalProcessActuator(new LocalProcessActuator.Options(LocalProcessActuator.currentJava(), workerJar,
                        config.integer(Setting.AUTOSCALER_LOCAL_WORKER_THREADS), logDir, Duration.ofSeconds(40),
                        config.longValue(Setting.WORKER_MAX_PIXELS)), clock, nanos);
            }
        };
    }

    /**
     * The jar a class was loaded from, e.g. fairpix.jar for the CLI's main class: the jar the local
     * actuator starts workers from.
     *
     * @throws IllegalStateException when the class has no code source that is a file
     */
    public static Path jarOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (Exception e) {
            throw new IllegalStateException("cannot locate the jar of " + type.getName(), e);
        }
    }
}
