package io.wrangler.read;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * ClassWarmup loads and initialises, on a daemon thread of its own, the classes a JVM's first read spends most of its
 * start on, while the read lists the table and fetches its footers: the static initialisers of Arrow's {@code Schema}
 * (an ObjectMapper of Jackson and its introspection of {@code Schema}: some 550 classes) and of parquet-java's
 * {@code ParquetMetadata} (parquet-java's shaded ObjectMapper: some 400), parquet-java's metadata converter, and
 * snappy-java (its native library). Measured from a fresh JVM's class loading log: the two ObjectMappers were about a
 * third of the first read's time, spent one after the other on the read's own thread.
 *
 * <p>Once per JVM, at the first read. Only an optimisation: the read's thread loads whatever it needs itself, waiting at
 * most for a class the warm-up thread is initialising (a class is initialised once, by one thread); a class that fails
 * to load here fails again, with its own error, where the read uses it.
 */
final class ClassWarmup {
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    /** In the order the read needs them last: the read's own thread takes the first ones it reaches itself. */
    static final List<String> CLASSES = List.of(
            "org.apache.arrow.vector.types.pojo.Schema",
            "org.xerial.snappy.Snappy",
            "org.apache.parquet.format.converter.ParquetMetadataConverter",
            "org.apache.parquet.hadoop.metadata.ParquetMetadata");

    private ClassWarmup() {
    }

    /** Starts the warm-up, once per JVM; returns at once. */
    static void start() {
        if (!STARTED.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(ClassWarmup::load, "wrangler-class-warmup");
        t.setDaemon(true);
        t.start();
    }

    private static void load() {
        ClassLoader loader = ClassWarmup.class.getClassLoader();
        for (String name : CLASSES) {
            try {
                Class.forName(name, true, loader);
            } catch (Throwable e) {
                // only an optimisation: the read loads the class itself and reports its own error
            }
        }
    }
}
