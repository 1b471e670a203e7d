package com.fairpix.core;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class CorpusLocatorTest {
    @Test
    void aMissingCorpusSkipsAUnitTestUnlessTheRunRequiresIt() {
        assertThatCode(() -> Corpus.present(true, "here", true)).doesNotThrowAnyException();
        assertThatThrownBy(() -> Corpus.present(false, "corpus file missing: x.jpg", false)).isInstanceOf(TestAbortedException.class);
        assertThatThrownBy(() -> Corpus.present(false, "corpus file missing: x.jpg", true)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("x.jpg").hasMessageContaining("FAIRPIX_REQUIRE_CORPUS");
    }
}
