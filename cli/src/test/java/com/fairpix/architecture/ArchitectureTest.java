package com.fairpix.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleName;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The boundaries between fairpix's modules and packages, read from the compiled classes of every
 * module (main and test) under the reactor root ({@code fairpix.root}, set by the cli POM). The
 * cli depends on every other module (the bench at test scope), so the reactor has compiled them
 * all before this runs.
 */
class ArchitectureTest {
    /** The modules whose main code keeps HTTP types in {@code ..http..} packages. */
    private static final List<String> SERVICE_MODULES = List.of("core", "webhooks", "ingest-api", "worker", "autoscaler");

    /**
     * A package with its {@code internal} subpackages is one slice: the public face builds the
     * implementations (Admissions, Actuators, Signals) that implement its interfaces.
     */
    private static final SliceAssignment PACKAGES_WITH_THEIR_INTERNALS = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
            String p = c.getPackageName();
            if (!p.startsWith("com.fairpix.")) return SliceIdentifier.ignore();
            int internal = (p + ".").indexOf(".internal.");
            return SliceIdentifier.of(internal < 0 ? p : p.substring(0, internal));
        }

        @Override
        public String getDescription() {
            return "com.fairpix packages, each with its internal subpackages";
        }
    };

    private static Path root;
    /** Main and test code of every module. */
    private static JavaClasses all;
    /** Module directory ({@code ingest-api}) → its main code. */
    private static final Map<String, JavaClasses> mainOf = new TreeMap<>();
    /** Test code of every module. */
    private static JavaClasses tests;

    @BeforeAll
    static void importEveryModule() throws IOException {
        root = Path.of(System.getProperty("fairpix.root", "..")).toAbsolutePath().normalize();
        List<Path> dirs = new ArrayList<>();
        List<Path> testDirs = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(d -> Files.isRegularFile(d.resolve("pom.xml"))).sorted().toList()) {
                if (Files.isDirectory(module.resolve("src/main/java"))) {
                    Path classes = compiled(module, "classes");
                    mainOf.put(module.getFileName().toString(), new ClassFileImporter().importPath(classes));
                    dirs.add(classes);
                }
                if (Files.isDirectory(module.resolve("src/test/java"))) testDirs.add(compiled(module, "test-classes"));
            }
        }
        dirs.addAll(testDirs);
        all = new ClassFileImporter().importPaths(dirs);
        tests = new ClassFileImporter().importPaths(testDirs);
        assertThat(mainOf).as("modules found under %s", root).containsKeys("core", "webhooks", "ingest-api", "worker", "autoscaler", "cli", "bench");
    }

    private static Path compiled(Path module, String output) {
        Path dir = module.resolve("target").resolve(output);
        assertThat(dir).as("%s is compiled: build with 'mvn test -pl cli -am' (cli must depend on every module)", dir).isDirectory();
        return dir;
    }

    @Test
    void noModuleUsesAnotherModulesInternalPackages() {
        classes().should(useNoOtherModulesInternals())
                .because("a module's internal packages are its own; others go through its public face (e.g. Admissions, Actuators)")
                .check(all);
    }

    /**
     * Every module's public face, as the "its public face" column of docs/architecture.md's module
     * table states it, is all that other modules (main and test code, bench included) use of it: the
     * names in backticks there, each a class (with its nested classes; {@code ScalingPolicy.stabilized}
     * names the class {@code ScalingPolicy}) or a package ({@code com.fairpix.webhooks}: its classes,
     * not its subpackages'); "every package" opens a module whole. So the doc and the code cannot
     * drift apart: a class others need is added to the doc's face, or they go through one that is.
     */
    @Test
    void otherModulesUseOnlyEachModulesDocumentedFace() throws IOException {
        Map<String, Face> faces = documentedFaces(root.resolve("docs/architecture.md"));
        assertThat(faces.keySet()).as("docs/architecture.md's module table names every module").containsAll(mainOf.keySet());
        for (String module : mainOf.keySet()) {
            Face face = faces.get(module);
            for (String pkg : face.packages) {
                assertThat(mainOf.get(module).stream().anyMatch(c -> c.getPackageName().equals(pkg)))
                        .as("%s's documented face names %s, a package of it", module, pkg).isTrue();
            }
            for (String name : face.classes) {
                assertThat(mainOf.get(module).stream().anyMatch(c -> c.getSimpleName().equals(name) && !c.isNestedClass()))
                        .as("%s's documented face names %s, a class of it", module, name).isTrue();
            }
        }
        classes().should(useOnlyOtherModulesFaces(faces))
                .because("docs/architecture.md states each module's public face; the rest is the module's own")
                .check(all);
    }

    /** A module's face: whole ({@code all}), or classes by simple name and packages by name. */
    record Face(boolean all, java.util.Set<String> classes, java.util.Set<String> packages) {
        boolean shows(JavaClass c) {
            if (all) return true;
            JavaClass top = c;
            while (top.getEnclosingClass().isPresent()) top = top.getEnclosingClass().get();
            return classes.contains(top.getSimpleName()) || packages.contains(c.getPackageName());
        }
    }

    /** Reads the module table of {@code doc}: module directory → its face column. */
    static Map<String, Face> documentedFaces(Path doc) throws IOException {
        Map<String, Face> faces = new TreeMap<>();
        java.util.regex.Pattern row = java.util.regex.Pattern.compile("^\\| `([a-z-]+)/` \\|.*\\| ([^|]*) \\|$");
        java.util.regex.Pattern ticked = java.util.regex.Pattern.compile("`([^`]+)`");
        for (String line : Files.readAllLines(doc)) {
            java.util.regex.Matcher m = row.matcher(line);
            if (!m.matches()) continue;
            String column = m.group(2);
            java.util.Set<String> classes = new java.util.TreeSet<>();
            java.util.Set<String> packages = new java.util.TreeSet<>();
            java.util.regex.Matcher t = ticked.matcher(column);
            while (t.find()) {
                String name = t.group(1);
                if (name.contains("internal")) continue; // where the implementations are: named as not the face
                if (name.startsWith("com.fairpix.")) packages.add(name);
                else if (Character.isUpperCase(name.charAt(0))) classes.add(name.contains(".") ? name.substring(0, name.indexOf('.')) : name);
            }
            faces.put(m.group(1), new Face(column.startsWith("every package"), classes, packages));
        }
        return faces;
    }

    /** Fails each dependency on a class another module compiled that is not in that module's face. */
    private static ArchCondition<JavaClass> useOnlyOtherModulesFaces(Map<String, Face> faces) {
        return new ArchCondition<>("use only other modules' documented faces") {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                String from = module(origin);
                for (Dependency d : origin.getDirectDependenciesFromSelf()) {
                    JavaClass target = d.getTargetClass().getBaseComponentType();
                    if (!target.getPackageName().startsWith("com.fairpix.")) continue;
                    String to = module(target);
                    if (from.equals(to) || to.equals("?")) continue;
                    Face face = faces.get(to);
                    if (face == null || !face.shows(target)) {
                        events.add(SimpleConditionEvent.violated(d, d.getDescription() + " [" + from + " -> " + to + ": not in its documented face]"));
                    }
                }
            }
        };
    }

    @Test
    void mainPackagesFormNoCycles() {
        checkEach(slices().assignedFrom(PACKAGES_WITH_THEIR_INTERNALS).should().beFreeOfCycles(), mainOf.keySet());
    }

    @Test
    void unitTestsDoNotSleep() {
        noClasses().that().resideOutsideOfPackage("com.fairpix.it..").and().haveNameNotMatching(".*IT(\\$.*)?")
                .should().callMethodWhere(DescribedPredicate.describe("Thread.sleep or TimeUnit.sleep", (JavaMethodCall call) -> {
                    String owner = call.getTarget().getOwner().getName();
                    return call.getTarget().getName().equals("sleep")
                            && (owner.equals(Thread.class.getName()) || owner.equals(java.util.concurrent.TimeUnit.class.getName()));
                }))
                .because("a unit test moves a ManualClock; waiting on real time is for the integration tests (*IT, com.fairpix.it)")
                .check(tests);
    }

    @Test
    void httpTypesStayInHttpPackages() {
        ArchRule javalinAndJetty = noClasses().that().resideOutsideOfPackage("..http..")
                .should().dependOnClassesThat().resideInAnyPackage("io.javalin..", "org.eclipse.jetty..")
                .because("requests and responses are the edge's business; services start their HTTP server through"
                        + " core's ServiceBootstrap and hand it their routes from their http package");
        ArchRule problems = noClasses().that().resideOutsideOfPackage("..http..")
                .should().dependOnClassesThat(simpleName("ApiProblem").and(resideInAPackage("com.fairpix..")))
                .because("services throw core's error family (com.fairpix.core.error); the HTTP edge maps it to problem+json");
        checkEach(CompositeArchRule.of(javalinAndJetty).and(problems), SERVICE_MODULES);
    }

    /**
     * Checks {@code rule} on each module's main code alone, reporting every module's violations.
     * One module at a time: ArchUnit 1.5 reported some cycles (the worker's, the autoscaler's) only
     * when their module was checked without the others, and packages of two modules cannot form a
     * cycle because the modules form none.
     */
    private static void checkEach(ArchRule rule, Collection<String> modules) {
        List<String> failures = new ArrayList<>();
        for (String module : modules) {
            EvaluationResult result = rule.evaluate(mainOf.get(module));
            if (result.hasViolation()) failures.add(module + ": " + result.getFailureReport());
        }
        if (!failures.isEmpty()) fail(String.join("\n\n", failures));
    }

    /** Fails each dependency on a class of an {@code internal} package that another module compiled. */
    private static ArchCondition<JavaClass> useNoOtherModulesInternals() {
        return new ArchCondition<>("use no other module's internal packages") {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                String from = module(origin);
                for (Dependency d : origin.getDirectDependenciesFromSelf()) {
                    JavaClass target = d.getTargetClass().getBaseComponentType();
                    if (!target.getPackageName().startsWith("com.fairpix.") || !isInternal(target)) continue;
                    String to = module(target);
                    if (!from.equals(to)) events.add(SimpleConditionEvent.violated(d, d.getDescription() + " [" + from + " -> " + to + "'s internals]"));
                }
            }
        };
    }

    private static boolean isInternal(JavaClass c) {
        return ("." + c.getPackageName() + ".").contains(".internal.");
    }

    /** The module directory a class was compiled into ({@code ingest-api}, {@code cli}, ...); "?" when not from this tree. */
    private static String module(JavaClass c) {
        return c.getSource()
                .filter(s -> "file".equals(s.getUri().getScheme()))
                .map(s -> Path.of(s.getUri()))
                .filter(p -> p.startsWith(root))
                .map(p -> root.relativize(p).getName(0).toString())
                .orElse("?");
    }
}
