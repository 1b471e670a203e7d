package com.fairpix.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fairpix.core.job.OperationType;
import com.fairpix.core.job.Operations;
import io.swagger.v3.oas.models.media.Schema;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The tenant API's document lists exactly the operations core registers ({@link Operations#ALL}),
 * each with exactly its members: the {@code op} enum, the {@code x-operations} map (op → members)
 * and the {@code Operation} schema's properties. The document is written by hand, so a new
 * operation fails here until it is documented.
 */
class OperationsDocumentedTest {
    private final Schema<?> operation = OpenApiContract.of("ingest").api().getComponents().getSchemas().get("Operation");

    @Test
    void theOpEnumIsTheRegisteredNamesInOrder() {
        assertThat(operation.getProperties().get("op").getEnum()).map(String::valueOf).containsExactlyElementsOf(Operations.names());
    }

    @Test
    void xOperationsGivesEachRegisteredOperationItsMembers() {
        Object documented = operation.getExtensions() == null ? null : operation.getExtensions().get("x-operations");
        assertThat(documented).as("x-operations in the Operation schema").isInstanceOf(Map.class);
        Map<?, ?> doc = (Map<?, ?>) documented;
        assertThat(List.copyOf(doc.keySet())).as("the operations, in order").isEqualTo(Operations.names());
        for (OperationType<?> t : Operations.ALL) assertThat(doc.get(t.name())).as("members of %s", t.name()).isEqualTo(t.members());
    }

    @Test
    void thePropertiesAreOpAndEveryOperationsMembersAndNothingElse() {
        TreeSet<String> members = new TreeSet<>(List.of("op"));
        Operations.ALL.forEach(t -> members.addAll(t.members()));
        assertThat(new TreeSet<>(operation.getProperties().keySet())).isEqualTo(members);
    }
}
