package com.fairpix.cli;

import java.util.concurrent.CountDownLatch;

/** Keeps a service command alive until SIGTERM/SIGINT, then runs its graceful stop. */
final class Services {
    private Services() {}

    static int runUntilSignalled(Runnable stop) {
        CountDownLatch done = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            try {
                stop.run();
            } finally {
                done.countDown();
            }
        }, "fairpix-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Fairpix.OK;
    }
}
