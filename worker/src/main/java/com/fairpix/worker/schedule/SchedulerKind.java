package com.fairpix.worker.schedule;

import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;

/**
 * The dispatch order across tenants that {@code worker.scheduler} names ({@code fair} or
 * {@code fifo}, its setting's constraint), each building its {@link JobScheduler}.
 */
public enum SchedulerKind {
    /** Start-time fair queueing by cost and weight, with reserved slots for tenants with no job running ({@link FairScheduler}). */
    FAIR {
        @Override
        public <T> JobScheduler<T> create(ToDoubleFunction<String> weights, ToIntFunction<String> runningCaps, int sharedSlots, int reservedSlots) {
            return new FairScheduler<>(weights, runningCaps, sharedSlots, reservedSlots);
        }
    },
    /** Arrival order, the baseline ({@link FifoScheduler}): it knows no tenants, so it has no reserved slots. */
    FIFO {
        @Override
        public <T> JobScheduler<T> create(ToDoubleFunction<String> weights, ToIntFunction<String> runningCaps, int sharedSlots, int reservedSlots) {
            return new FifoScheduler<>();
        }

        @Override
        public boolean reservesSlots() {
            return false;
        }
    };

    /**
     * The scheduler of this kind.
     *
     * @param weights       tenant id → weight (> 0), read at each dispatch
     * @param runningCaps   tenant id → jobs of the tenant that may run at once on this worker
     * @param sharedSlots   slots any tenant may fill (≥ 1)
     * @param reservedSlots slots kept for tenants with no job running (≥ 0; 0 when {@link #reservesSlots()} is false)
     */
    public abstract <T> JobScheduler<T> create(ToDoubleFunction<String> weights, ToIntFunction<String> runningCaps, int sharedSlots, int reservedSlots);

    /** Whether this kind hands out reserved slots, so the worker runs reserved threads for it. */
    public boolean reservesSlots() {
        return true;
    }
}
