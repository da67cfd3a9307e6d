package io.wrangler.commit;

import io.wrangler.StorageException;
import io.wrangler.WranglerException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/** Turns SDK failures into {@link StorageException}s that name the table, the step and what to do. */
final class Failures {
    private Failures() {
    }

    static StorageException storage(String table, Step step, String doing, SdkException e, String whatToDo) {
        String requestId = null;
        int status = 0;
        String found = e.getMessage();
        if (e instanceof AwsServiceException a) {
            requestId = a.requestId();
            status = a.statusCode();
            String code = a.awsErrorDetails() == null ? null : a.awsErrorDetails().errorCode();
            found = (code == null ? "HTTP " + status : code + " (HTTP " + status + ")")
                    + (requestId == null ? "" : ", request id " + requestId);
        }
        return new StorageException(table, step.label(), "Cannot " + doing + " for " + table + " (step: " + step.label()
                + "): S3 answered " + found + ". " + whatToDo, requestId, status, e);
    }

    /** The real failure inside a future's wrapper; Errors (a simulated or real crash) pass through untouched. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Rethrows an unwrapped failure as unchecked, keeping Errors and WranglerExceptions as they are. */
    static RuntimeException rethrow(Throwable t, String table, Step step, String doing, String whatToDo) {
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
        if (t instanceof RuntimeException r) {
            return r;
        }
        return new StorageException(table, step.label(), "Cannot " + doing + " for " + table + " (step: " + step.label()
                + "): " + t + ". " + whatToDo, null, 0, t);
    }
}
