package com.fairpix.autoscaler;

import com.fairpix.autoscaler.policy.Decision;
import com.fairpix.autoscaler.policy.PoolScaler;
import com.fairpix.autoscaler.signal.PoolSignals;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/** One pool's operator state (mode, manual size) and what was last seen and decided. Guarded by its own lock. */
final class PoolControl {
    /** AUTO: the policy decides; PAUSED: hold whatever runs; MANUAL: hold the operator's number. */
    enum Mode { AUTO, PAUSED, MANUAL }

    private static final int LOG_SIZE = 200;

    final PoolScaler scaler;
    Mode mode = Mode.AUTO;
    int manualReplicas;
    PoolSignals lastReading;
    PoolSignals lastGoodReading;
    Decision lastDecision;
    int actual = -1;
    String actuatorError;
    private final Deque<Decision> log = new ArrayDeque<>();

    PoolControl(PoolScaler scaler) {
        this.scaler = scaler;
    }

    void record(Decision d) {
        lastDecision = d;
        log.addLast(d);
        while (log.size() > LOG_SIZE) log.removeFirst();
    }

    /** The last {@code limit} decisions, newest first. */
    List<Decision> decisions(int limit) {
        List<Decision> out = new ArrayList<>();
        var it = log.descendingIterator();
        while (it.hasNext() && out.size() < limit) out.add(it.next());
        return out;
    }
}
