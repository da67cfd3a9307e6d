package io.wrangler;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * ArrowMemory checks, once per JVM and before any I/O, that Arrow can hand its memory to NIO: on JDK 17 and later that
 * needs {@code --add-opens=java.base/java.nio=ALL-UNNAMED}, and without it the first upload or read of a file fails deep
 * inside a request, where it would read as an S3 error that a rerun could fix.
 */
final class ArrowMemory {
    static final String FLAG = "--add-opens=java.base/java.nio=ALL-UNNAMED";
    private static volatile boolean usable;

    private ArrowMemory() {
    }

    /**
     * Returns when Arrow's memory works; else throws an {@link InvalidWriteException} naming the JVM flag.
     *
     * @param verb what the caller does ("write", "read", "compact")
     * @param uri the table, for the message
     */
    static void check(String verb, String uri) {
        if (usable) {
            return;
        }
        try (BufferAllocator allocator = new RootAllocator(64); ArrowBuf probe = allocator.buffer(8)) {
            probe.nioBuffer(0, 8);
            usable = true;
        } catch (RuntimeException | LinkageError e) {
            throw new InvalidWriteException(uri, WriteStep.VALIDATE, "Cannot " + verb + " " + uri + " (step: validate): Apache Arrow "
                    + "cannot use direct memory in this JVM (" + e + "). Start the JVM with " + FLAG + " (java " + FLAG
                    + " ...; for mvn exec:java put it in MAVEN_OPTS or .mvn/jvm.config; for Surefire in its argLine; for JShell "
                    + "-R" + FLAG + " -J" + FLAG + "). Nothing was touched; rerunning without the flag cannot help.", e);
        }
    }
}
