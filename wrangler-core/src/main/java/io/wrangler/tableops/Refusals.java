package io.wrangler.tableops;

import io.wrangler.CatalogException;
import io.wrangler.InvalidWriteException;
import io.wrangler.StorageException;
import io.wrangler.WranglerException;
import io.wrangler.WriteStep;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.TableLayout;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;

/**
 * The refusals of register, repair and drop table in their validate step, before anything is changed: messages read
 * {@code Cannot <verb> <table> (step: validate): <what was found>. <what to do>}.
 */
final class Refusals {
    private final String table;
    private final String verb;

    Refusals(String table, String verb) {
        this.table = table;
        this.verb = verb;
    }

    InvalidWriteException invalid(String what, String todo) {
        return new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot " + verb + " " + table + " (step: validate): " + what + ". "
                + todo);
    }

    /** S3 failed while the operation read the table, before any change. */
    WranglerException storage(String doing, SdkException e) {
        if (e instanceof NoSuchBucketException || e instanceof AwsServiceException a && a.statusCode() == 404 && doing.equals("reach the bucket")) {
            return invalid("the bucket of " + table + " does not exist", "Create it, or fix the URI.");
        }
        String requestId = e instanceof AwsServiceException a ? a.requestId() : null;
        int status = e instanceof AwsServiceException a ? a.statusCode() : 0;
        return new StorageException(table, WriteStep.VALIDATE, "Cannot " + verb + " " + table + " (step: validate): S3 failed to " + doing
                + " (" + e.getMessage() + "). Nothing was changed; fix the cause and rerun.", requestId, status, e);
    }

    /** The catalog's table as it is, read before any change; its failure named for this operation. */
    TableLayout layout(CatalogTable catalog) {
        try {
            return catalog.layout();
        } catch (UnsupportedOperationException e) {
            throw invalid("the catalog " + catalog.describe() + " cannot be read (" + e.getMessage() + ")", "Use a catalog that gives its "
                    + "table's layout, such as GlueCatalog's tables.");
        } catch (CatalogException e) {
            throw new CatalogException(table, WriteStep.VALIDATE, "Cannot " + verb + " " + table + " (step: validate): " + e.getMessage()
                    + (e.getMessage().endsWith(".") ? "" : ".") + " Nothing was changed.", e);
        }
    }

    /** A catalog's refusal of the definition ({@code prepare}), worded for this operation. */
    WranglerException prepareRefused(InvalidWriteException e) {
        String m = e.getMessage();
        String own = "Cannot write " + table + " (step: validate): ";
        String what = m.startsWith(own) ? m.substring(own.length()) : m;
        return new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot " + verb + " " + table + " (step: validate): " + what, e);
    }

    /** A location as a catalog may spell it, compared with a table root: {@code s3://} for {@code s3a://}, a trailing slash. */
    static String normalized(String location) {
        if (location == null) {
            return null;
        }
        String l = location.startsWith("s3a://") || location.startsWith("s3n://") ? "s3://" + location.substring(6) : location;
        return l.endsWith("/") ? l : l + "/";
    }
}
