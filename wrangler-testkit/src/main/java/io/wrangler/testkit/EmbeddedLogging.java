package io.wrangler.testkit;

import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts an embedded server (S3Mock's Spring Boot, its Tomcat) so that the JVM's logging is left as it was: wrangler's
 * {@code System.Logger} lines (java.util.logging's console at INFO by default) keep reaching the console.
 *
 * <ul>
 *   <li>Spring Boot gets no logging system ({@code org.springframework.boot.logging.LoggingSystem=none}, set only while
 *       it starts): it neither resets java.util.logging nor installs its bridge into SLF4J on JUL's root logger.</li>
 *   <li>JUL's root logger gets its handlers and level back after the start, should anything have replaced them.</li>
 *   <li>Tomcat logs through java.util.logging, and so does Spring when commons-logging finds no other backend: their
 *       routine start lines (INFO) and the stack traces of uploads cut short by a simulated crash are held back, unless
 *       the application set those loggers' levels itself.</li>
 *   <li>With no SLF4J provider on the class path (a program with no logging backend), SLF4J is pointed at its own
 *       no-operation provider, which it would fall back to anyway, without its three-line warning.</li>
 * </ul>
 */
final class EmbeddedLogging {
    private static final String SPRING_LOGGING_SYSTEM = "org.springframework.boot.logging.LoggingSystem";
    private static final String SLF4J_PROVIDER = "slf4j.provider";
    private static final String SLF4J_VERBOSITY = "slf4j.internal.verbosity";
    /** Held here: java.util.logging keeps its loggers weakly, and a collected logger forgets its level. */
    private static final List<Logger> QUIETED = List.of(Logger.getLogger("org.apache.catalina"),
            Logger.getLogger("org.apache.coyote"), Logger.getLogger("org.apache.tomcat"), Logger.getLogger("org.springframework"));

    private EmbeddedLogging() {
    }

    static synchronized <T> T leftAlone(Supplier<T> start) {
        for (Logger l : QUIETED) {
            if (l.getLevel() == null) {
                l.setLevel(l.getName().equals("org.apache.catalina") ? Level.OFF : Level.WARNING);
            }
        }
        Logger root = Logger.getLogger("");
        Handler[] handlers = root.getHandlers();
        Level level = root.getLevel();
        String springBefore = System.getProperty(SPRING_LOGGING_SYSTEM);
        String providerBefore = System.getProperty(SLF4J_PROVIDER);
        String verbosityBefore = System.getProperty(SLF4J_VERBOSITY);
        if (springBefore == null) {
            System.setProperty(SPRING_LOGGING_SYSTEM, "none");
        }
        if (providerBefore == null && noSlf4jProvider()) {
            System.setProperty(SLF4J_PROVIDER, "org.slf4j.helpers.NOP_FallbackServiceProvider");
            if (verbosityBefore == null) {
                System.setProperty(SLF4J_VERBOSITY, "WARN");
            }
        }
        try {
            return start.get();
        } finally {
            restore(SPRING_LOGGING_SYSTEM, springBefore);
            restore(SLF4J_PROVIDER, providerBefore);
            restore(SLF4J_VERBOSITY, verbosityBefore);
            if (!List.of(root.getHandlers()).equals(List.of(handlers))) {
                for (Handler h : root.getHandlers()) {
                    root.removeHandler(h);
                }
                for (Handler h : handlers) {
                    root.addHandler(h);
                }
            }
            root.setLevel(level);
        }
    }

    private static boolean noSlf4jProvider() {
        try {
            Class<?> spi = Class.forName("org.slf4j.spi.SLF4JServiceProvider", false, EmbeddedLogging.class.getClassLoader());
            return ServiceLoader.load(spi, EmbeddedLogging.class.getClassLoader()).stream().findAny().isEmpty();
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static void restore(String property, String before) {
        if (before == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, before);
        }
    }
}
