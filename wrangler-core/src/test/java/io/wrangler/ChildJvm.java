package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A {@code main} of the tests run in a JVM of its own, as a user's program runs: the JDK's {@code java}, wrangler-core's
 * classes and test classes and its runtime class path (written by the build to {@code target/runtime-classpath.txt}:
 * no test-scope jar), {@code --add-opens} for Arrow's memory, then the given JVM flags. Standard error goes to the
 * same stream as standard output.
 */
final class ChildJvm {
    private final Class<?> main;
    private final List<String> args;
    private final List<String> jvmArgs = new ArrayList<>();
    private String classPath;
    private boolean addOpens = true;
    private Consumer<Map<String, String>> environment = env -> { };

    private ChildJvm(Class<?> main, List<String> args) {
        this.main = main;
        this.args = args;
    }

    /** {@code main.main(args)} in a child JVM. */
    static ChildJvm of(Class<?> main, String... args) {
        return new ChildJvm(main, List.of(args));
    }

    /** JVM flags, after {@code --add-opens} (e.g. {@code -Xmx64m}, {@code -XX:+UseSerialGC}). */
    ChildJvm jvmArgs(String... flags) {
        jvmArgs.addAll(List.of(flags));
        return this;
    }

    /** Leaves out {@code --add-opens} (to see what a user who forgot it sees). */
    ChildJvm withoutAddOpens() {
        this.addOpens = false;
        return this;
    }

    /** Another class path than wrangler-core's runtime one (e.g. this JVM's, test jars included). */
    ChildJvm classPath(String path) {
        this.classPath = path;
        return this;
    }

    /** Changes the child's environment, which starts as this JVM's. */
    ChildJvm environment(Consumer<Map<String, String>> change) {
        this.environment = change;
        return this;
    }

    /** wrangler-core's classes, test classes and runtime class path (no test-scope jar). */
    static String runtimeClassPath() {
        try {
            String runtime = Files.readString(Path.of("target/runtime-classpath.txt"), StandardCharsets.UTF_8).trim();
            return String.join(File.pathSeparator, Path.of("target/classes").toAbsolutePath().toString(),
                    Path.of("target/test-classes").toAbsolutePath().toString(), runtime);
        } catch (IOException e) {
            throw new UncheckedIOException("target/runtime-classpath.txt is written by the build (dependency:build-classpath)", e);
        }
    }

    /** Starts the child; read its output from {@link Process#getInputStream()}. */
    Process start() throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (addOpens) {
            command.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        }
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", classPath != null ? classPath : runtimeClassPath(), main.getName()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        environment.accept(builder.environment());
        return builder.start();
    }

    /**
     * Runs the child to its end and returns what it printed; a child still running after {@code timeoutSeconds} is
     * killed and the test fails with what it printed so far.
     */
    Result run(long timeoutSeconds) throws IOException, InterruptedException {
        Process child = start();
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("(reading the child's output failed: " + e + ")");
            }
        }, "child-output");
        reader.start();
        boolean ended = child.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        if (!ended) {
            child.destroyForcibly().waitFor();
        }
        reader.join();
        assertThat(ended).as("%s ended within %d s; it printed:%n%s", main.getSimpleName(), timeoutSeconds,
                String.join("\n", lines)).isTrue();
        return new Result(child.exitValue(), List.copyOf(lines));
    }

    /** What a child printed, line by line, and its exit status. */
    record Result(int exit, List<String> lines) {
        /** Everything it printed. */
        String output() {
            return String.join("\n", lines);
        }

        /** This result, after checking that the child exited with 0 (the failure shows what it printed). */
        Result succeeded() {
            assertThat(exit).as("exit status; it printed:%n%s", output()).isZero();
            return this;
        }

        /** The first line starting with {@code prefix}, which must exist. */
        String line(String prefix) {
            return lines.stream().filter(l -> l.startsWith(prefix)).findFirst()
                    .orElseThrow(() -> new AssertionError("no line starting \"" + prefix + "\" in:\n" + output()));
        }
    }
}
