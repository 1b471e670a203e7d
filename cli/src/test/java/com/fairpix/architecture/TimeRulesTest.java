package com.fairpix.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.AccessTarget.CodeUnitAccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.time.Clock;
import java.util.Set;

/**
 * Time is a parameter: service code reads the system's clocks only through
 * {@code com.fairpix.core.time.SystemTime}, so every decision taken by time can be driven by a
 * test's manual clock.
 */
@AnalyzeClasses(packages = "com.fairpix", importOptions = {ImportOption.DoNotIncludeTests.class, TimeRulesTest.DoNotIncludeTestJars.class})
class TimeRulesTest {
    /** Leaves out a module's test-jar, which {@code mvn verify} puts on the classpath in place of its test-classes folder. */
    static final class DoNotIncludeTestJars implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("-tests.jar");
        }
    }

    /** The {@code now()} factories of java.time that read the system clock unless handed a {@link Clock}. */
    private static final Set<String> DATE_TIME_TYPES = Set.of("java.time.Instant", "java.time.LocalDate",
            "java.time.LocalDateTime", "java.time.LocalTime", "java.time.ZonedDateTime", "java.time.OffsetDateTime",
            "java.time.OffsetTime");

    private static final DescribedPredicate<JavaAccess<?>> READS_THE_SYSTEM_CLOCK = DescribedPredicate.describe(
            "System.currentTimeMillis/nanoTime, Clock.system*, or a java.time now() without a Clock",
            access -> {
                String owner = access.getTarget().getOwner().getName();
                String name = access.getTarget().getName();
                if (owner.equals("java.lang.System")) return name.equals("currentTimeMillis") || name.equals("nanoTime");
                if (owner.equals("java.time.Clock")) return name.startsWith("system");
                return DATE_TIME_TYPES.contains(owner) && name.equals("now")
                        && access.getTarget() instanceof CodeUnitAccessTarget target
                        && target.getRawParameterTypes().stream().noneMatch(p -> p.isEquivalentTo(Clock.class));
            });

    @ArchTest
    static final ArchRule SERVICE_CODE_READS_TIME_THROUGH_THE_CLOCK_PROVIDER = noClasses()
            .that().resideOutsideOfPackages(
                    // cli and bench are not service code: commands and benchmarks measure the wall clock
                    "com.fairpix.cli..", "com.fairpix.bench..")
            .and().haveNameNotMatching("com\\.fairpix\\.core\\.time\\.SystemTime(\\$.*)?")
            .should().accessTargetWhere(READS_THE_SYSTEM_CLOCK)
            .because("a decision taken by time must take a Clock or nanosecond source as a parameter "
                    + "(com.fairpix.core.time.SystemTime wires the system's at start-up)");
}
