package io.wrangler.commit;

import io.wrangler.StorageException;
import io.wrangler.WranglerException;
import io.wrangler.WriteIncompleteException;
import io.wrangler.WriteStep;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Turns SDK failures into the exception of the outcome they leave: {@link StorageException} before the commit point
 * (nothing changed), {@link WriteIncompleteException} after it (committed, to be finished). Messages name the table, the
 * step, what S3 answered and what to do.
 */
final class Failures {
    private Failures() {
    }

    private static String found(SdkException e) {
        if (e instanceof AwsServiceException a) {
            String code = a.awsErrorDetails() == null ? null : a.awsErrorDetails().errorCode();
            return (code == null ? "HTTP " + a.statusCode() : code + " (HTTP " + a.statusCode() + ")")
                    + (a.requestId() == null ? "" : ", request id " + a.requestId());
        }
        return e.getMessage();
    }

    static StorageException storage(String table, WriteStep step, String doing, SdkException e, String whatToDo) {
        String requestId = e instanceof AwsServiceException a ? a.requestId() : null;
        int status = e instanceof AwsServiceException a ? a.statusCode() : 0;
        return new StorageException(table, step, "Cannot " + doing + " for " + table + " (step: " + step.label()
                + "): S3 answered " + found(e) + ". " + whatToDo, requestId, status, e);
    }

    /** An S3 failure after the commit point: the write is committed and {@code step} is what remains. */
    static WriteIncompleteException incomplete(String table, WriteStep step, String doing, SdkException e, String whatToDo) {
        return new WriteIncompleteException(table, step, step, "Cannot " + doing + " for " + table + " (step: " + step.label()
                + "): S3 answered " + found(e) + ". " + whatToDo, e);
    }

    /** The value of a completed future, its failure rethrown unwrapped (an Error or unchecked exception as it is). */
    static <T> T joined(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            Throwable t = unwrap(e);
            if (t instanceof Error err) {
                throw err;
            }
            if (t instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    /** The real failure inside a future's wrapper; Errors (a simulated or real crash) pass through untouched. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Rethrows a failure before the commit point, keeping Errors and WranglerExceptions as they are. */
    static RuntimeException rethrow(Throwable t, String table, WriteStep step, String doing, String whatToDo) {
        t = unwrap(t);
        if (t instanceof Error err) {
            throw err;
        }
        if (t instanceof WranglerException w) {
            return w;
        }
        if (t instanceof SdkException s) {
            return storage(table, step, doing, s, whatToDo);
        }
        return new StorageException(table, step, "Cannot " + doing + " for " + table + " (step: " + step.label()
                + "): " + t + ". " + whatToDo, null, 0, t);
    }

    /** Rethrows a failure after the commit point as a WriteIncompleteException, keeping Errors and WranglerExceptions. */
    static RuntimeException incompleteOrRethrow(Throwable t, String table, WriteStep step, String doing, String whatToDo) {
        t = unwrap(t);
        if (t instanceof Error err) {
            throw err;
        }
        if (t instanceof WranglerException w) {
            return w;
        }
        if (t instanceof SdkException s) {
            return incomplete(table, step, doing, s, whatToDo);
        }
        return new WriteIncompleteException(table, step, step, "Cannot " + doing + " for " + table + " (step: " + step.label()
                + "): " + t + ". " + whatToDo, t);
    }
}
