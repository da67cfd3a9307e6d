package io.wrangler.testkit;

/**
 * The testkit's optional dependencies (S3Mock for {@link LocalS3}, DuckDB for {@link DuckReader}): a project declares
 * the ones it uses, so that MemoryS3 and LocalGlue alone bring neither Spring Boot, Tomcat nor DuckDB.
 */
final class OptionalDependency {
    private OptionalDependency() {
    }

    /** Fails with what to add to the build when {@code className} (of {@code artifact}) is not on the class path. */
    static void require(String className, String user, String artifact, String instead) {
        try {
            Class.forName(className, false, OptionalDependency.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException(user + " needs " + artifact + " on the class path, an optional dependency of "
                    + "wrangler-testkit: declare it in your build (its version, and its exclusions, come with wrangler-bom)"
                    + instead + ".", e);
        }
    }
}
