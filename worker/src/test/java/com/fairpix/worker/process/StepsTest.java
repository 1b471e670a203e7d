package com.fairpix.worker.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.Operation;
import com.fairpix.core.job.OperationType;
import com.fairpix.core.job.Operations;
import org.junit.jupiter.api.Test;
import org.opencv.core.Mat;

/** Every operation core registers has its pixel step here: a new operation cannot reach a worker without one. */
class StepsTest {
    @Test
    void everyRegisteredOperationButTheTerminalEncodeHasAPixelStep() {
        for (OperationType<?> type : Operations.ALL) {
            if (type == Operation.Encode.TYPE) continue; // ImagePipeline encodes; it makes bytes, not a Mat
            assertThat(Steps.has(type)).as("a step for %s in Steps", type.name()).isTrue();
        }
    }

    @Test
    void backgroundChangesNoPixelAndSetsTheColourTheEncodeFlattensOn() {
        Mat image = StepImages.solid(2, 2, 1, 2, 3);
        Steps.Context context = new Steps.Context(Deadline.none(), key -> null);
        assertThat(Steps.apply(image, new Operation.Background("#102030"), context)).isSameAs(image);
        assertThat(context.background).containsExactly(0x30, 0x20, 0x10);
    }
}
