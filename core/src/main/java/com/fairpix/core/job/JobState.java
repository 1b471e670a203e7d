package com.fairpix.core.job;

/** QUEUED → RUNNING → DONE | FAILED, or QUEUED → CANCELLED. */
public enum JobState {
    QUEUED, RUNNING, DONE, FAILED, CANCELLED;

    public boolean terminal() {
        return this == DONE || this == FAILED || this == CANCELLED;
    }
}
