package com.fairpix.worker.consume;

import com.fairpix.core.job.JobMessage;

/**
 * Where a held (suspended) tenant's jobs go instead of the worker's buffer, until the tenant is
 * activated ({@link HeldJobs} in Redis). Thread-safe: the poll thread and the processing threads park.
 */
@FunctionalInterface
public interface JobParking {
    /**
     * Parks one job message.
     *
     * @throws RuntimeException when the store is unreachable: the caller keeps the job buffered
     */
    void park(JobMessage message);
}
