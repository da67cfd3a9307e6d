package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.SourceReferences;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The build gate of core's package boundary, read from the main sources (imports and fully qualified names): {@code
 * io.wrangler} is the API and names no internal package, {@link S3Parquet} excepted (the one bridge: the builders hand it
 * immutable API values, it converts them and runs the engine); the SPI packages ({@code io.wrangler.catalog}, which
 * catalogs implement, and {@code io.wrangler.spi}, which engines such as Spark use) name none either, their one adapter
 * ({@code io.wrangler.spi.Engine}) excepted; and no package cycle runs through the API or the SPI other than through
 * these two bridges, each taken as a node of its own (Engine is package-private: only its own package can name it).
 * There is no other exception: the builders' package-private test seams take API and SPI types only
 * ({@code stepHook(io.wrangler.spi.StepHook)}, and {@code tuning(S3Parquet.Tuning)}, the engine's tuning, which the
 * builders hold unread), and S3Parquet converts them to the engine's. Among the API's classes only the builders call
 * the bridge ({@link #BRIDGE_CALLERS}); and no cycle runs among the internal packages either (the table's layout,
 * {@code io.wrangler.layout}, lies below both reading and committing). Every package of core is classified here: a new
 * one must be added to one of the lists.
 */
class PackageBoundaryTest {
    static final Set<String> API = Set.of("io.wrangler");
    static final Set<String> SPI = Set.of("io.wrangler.catalog", "io.wrangler.spi");
    /**
     * The grammar every layer speaks (Hive types and paths): a leaf that names no other package of wrangler, so the API,
     * the SPI and the internals may all name it without a bridge, and no cycle can run through it.
     */
    static final Set<String> SHARED = Set.of("io.wrangler.hive");
    static final Set<String> INTERNAL = Set.of("io.wrangler.commit", "io.wrangler.compact", "io.wrangler.encoding", "io.wrangler.filter",
            "io.wrangler.input", "io.wrangler.layout", "io.wrangler.merge", "io.wrangler.partition", "io.wrangler.read", "io.wrangler.staging",
            "io.wrangler.storage",
            "io.wrangler.tableops");
    /** The classes allowed to name internal packages: the bridge of the API and the adapter of the SPI. */
    static final Set<String> BRIDGES = Set.of("io.wrangler.S3Parquet", "io.wrangler.spi.Engine");

    /**
     * The classes that call the bridge: the API's builders, whose terminal calls ({@code run}, {@code plan}, {@code open},
     * {@code toList}, {@code count}) hand their immutable values to {@link S3Parquet}. No other class names it, so no
     * value of the API (WriteOptions checking a Hive type, say) closes a loop through the engine.
     */
    static final Set<String> BRIDGE_CALLERS = Set.of("io.wrangler.CompactBuilder", "io.wrangler.MergeBuilder", "io.wrangler.ReadBuilder",
            "io.wrangler.WriteBuilder", "io.wrangler.DeleteRowsBuilder", "io.wrangler.DropPartitionsBuilder",
            "io.wrangler.RegisterBuilder", "io.wrangler.RepairBuilder", "io.wrangler.DropTableBuilder");

    private static final SourceReferences CORE = SourceReferences.of(Path.of("src", "main", "java"));

    @Test
    void everyPackageIsClassified() {
        Set<String> packages = new TreeSet<>();
        CORE.references().keySet().forEach(c -> packages.add(SourceReferences.packageOf(c)));
        packages.removeAll(API);
        packages.removeAll(SPI);
        packages.removeAll(INTERNAL);
        packages.removeAll(SHARED);
        assertThat(packages).as("packages of wrangler-core that PackageBoundaryTest does not classify as API, SPI, shared or internal: add "
                + "each to one of its lists, and say so in its package-info").isEmpty();
    }

    @Test
    void onlyTheBridgesNameInternalPackages() {
        List<String> violations = new ArrayList<>();
        CORE.references().forEach((cls, names) -> {
            String pkg = SourceReferences.packageOf(cls);
            if (BRIDGES.contains(cls) || !(API.contains(pkg) || SPI.contains(pkg))) {
                return;
            }
            for (String n : names) {
                if (INTERNAL.contains(SourceReferences.packageOf(n))) {
                    violations.add(cls + " names " + n);
                }
            }
        });
        assertThat(violations).as("API and SPI classes naming an internal package (only " + BRIDGES + " may: give the value to "
                + "S3Parquet, which converts it and calls the engine)").isEmpty();
    }

    @Test
    void theSharedGrammarNamesNoOtherPackageOfWrangler() {
        List<String> violations = new ArrayList<>();
        CORE.references().forEach((cls, names) -> {
            if (SHARED.contains(SourceReferences.packageOf(cls))) {
                names.stream().filter(n -> n.startsWith("io.wrangler.") && !SHARED.contains(SourceReferences.packageOf(n)))
                        .forEach(n -> violations.add(cls + " names " + n));
            }
        });
        assertThat(violations).isEmpty();
        // WriteOptions.Builder.dtype checks a Hive type here, not through the bridge
        assertThat(CORE.references().get("io.wrangler.WriteOptions")).contains("io.wrangler.hive.HiveTypes")
                .doesNotContain("io.wrangler.S3Parquet");
    }

    @Test
    void noCycleRunsThroughTheApiOrTheSpiButThroughTheBridges() {
        List<String> cycles = CORE.cycles(name -> BRIDGES.contains(name) ? name : SourceReferences.packageOf(name),
                (cls, name) -> false, PackageBoundaryTest::apiAndInternal, PackageBoundaryTest::apiOrSpi, INTERNAL::contains);
        assertThat(cycles).as("package cycles between the API or the SPI and internal packages (each step names the class that "
                + "makes it); only " + BRIDGES + " may close one").isEmpty();
    }

    @Test
    void noCycleAmongInternalPackages() {
        // The bridges as nodes of their own, as above: a cycle through them is the API's, checked there.
        List<String> cycles = CORE.cycles(name -> BRIDGES.contains(name) ? name : SourceReferences.packageOf(name),
                (cls, name) -> false, component -> component.stream().anyMatch(INTERNAL::contains), INTERNAL::contains,
                INTERNAL::contains);
        assertThat(cycles).as("package cycles among core's internal packages (each step names the class that makes it): move what "
                + "both sides need into a package below them (as io.wrangler.layout holds the table's layout for reading and "
                + "committing)").isEmpty();
    }

    @Test
    void onlyTheBuildersCallTheBridge() {
        Set<String> callers = new TreeSet<>();
        CORE.localReferences().forEach((cls, names) -> {
            if (names.contains("io.wrangler.S3Parquet")) {
                callers.add(cls);
            }
        });
        CORE.references().forEach((cls, names) -> {
            if (names.contains("io.wrangler.S3Parquet")) {
                callers.add(cls);
            }
        });
        assertThat(callers).as("classes of wrangler-core that name the bridge S3Parquet (only the builders' terminal calls may: "
                + "a value of the API checks with io.wrangler.hive, not through the engine)").isEqualTo(BRIDGE_CALLERS);
    }

    /**
     * A cycle that joins the API or the SPI to an internal package. The API and its SPI name each other (a builder takes a
     * catalog table, a catalog table is told the write mode): one published surface, not a cycle with internals.
     */
    private static boolean apiAndInternal(Set<String> component) {
        return component.stream().anyMatch(PackageBoundaryTest::apiOrSpi) && component.stream().anyMatch(INTERNAL::contains);
    }

    private static boolean apiOrSpi(String node) {
        return API.contains(node) || SPI.contains(node);
    }

    @Test
    void theGateSeesWhatItChecks() {
        // The scanner reads imports and fully qualified names, not comments or strings: a broken scanner passes every check.
        Map<String, Set<String>> refs = CORE.references();
        assertThat(refs.get("io.wrangler.S3Parquet")).contains("io.wrangler.input.BatchSource")
                .anyMatch(n -> n.startsWith("io.wrangler.commit."));
        assertThat(refs.entrySet()).as("a class of io.wrangler.commit that names WriteOptions")
                .anyMatch(e -> e.getKey().startsWith("io.wrangler.commit.") && e.getValue().contains("io.wrangler.WriteOptions"));
        assertThat(refs.get("io.wrangler.WriteBuilder")).contains("io.wrangler.catalog.CatalogTable", "io.wrangler.spi.StepHook")
                .doesNotContain("io.wrangler.input.BatchSource", "io.wrangler.commit.Writes");
        assertThat(refs.get("io.wrangler.CompactBuilder")).as("the builders' test seams, seen as SPI names")
                .contains("io.wrangler.spi.StepHook");
        assertThat(CORE.cycles(SourceReferences::packageOf, (cls, name) -> false, PackageBoundaryTest::apiAndInternal,
                PackageBoundaryTest::apiOrSpi, INTERNAL::contains))
                .as("S3Parquet taken as part of its package closes a cycle").singleElement().asString()
                .startsWith("io.wrangler -(").contains("S3Parquet names io.wrangler.").endsWith("-> io.wrangler");
        // The builders name the SPI's StepHook: with Engine taken as part of the SPI, that closes a cycle too.
        assertThat(CORE.cycles(name -> name.equals("io.wrangler.S3Parquet") ? name : SourceReferences.packageOf(name),
                (cls, name) -> false, PackageBoundaryTest::apiAndInternal, PackageBoundaryTest::apiOrSpi, INTERNAL::contains))
                .as("spi.Engine taken as part of its package closes a cycle").singleElement().asString()
                .contains("names io.wrangler.spi.").contains("Engine names io.wrangler.");
    }
}
