package com.fairpix.core;

/** Lets a test wait for another thread to block, without sleeping. */
public final class ThreadStates {
    private ThreadStates() {}

    /**
     * Returns once {@code t} is in a timed wait ({@code Object.wait(ms)}, a condition's
     * {@code awaitNanos}, a timed park): the thread got as far as the wait the test is about.
     *
     * @throws AssertionError when {@code t} ends, or is not waiting within 10 s
     */
    public static void awaitTimedWaiting(Thread t) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (t.getState() != Thread.State.TIMED_WAITING) {
            if (!t.isAlive() || System.nanoTime() - deadline > 0) {
                throw new AssertionError(t.getName() + " is " + t.getState() + ", not in a timed wait");
            }
            Thread.yield();
        }
    }
}
