package io.wrangler.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.CatalogException;
import io.wrangler.CommitConflictException;
import io.wrangler.CommitStateUnknownException;
import io.wrangler.WranglerException;
import io.wrangler.WriteIncompleteException;
import io.wrangler.WriteNotAppliedException;
import io.wrangler.WriteStep;
import io.wrangler.layout.Manifest;
import io.wrangler.storage.S3Location;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The two tables of package-info.java, read from their HTML, against {@link Outcomes}.
 *
 * <p>The state table: for every state a writer that lost the table can be in (column S), every write kind the row names
 * and every step it can lose the table at in that state, the exception Outcomes gives is the table's outcome ("not
 * applied": a CommitConflictException that says a rerun is safe; "incomplete": a WriteIncompleteException whose remaining
 * step is that step), and the table covers every state and kind exactly once.
 *
 * <p>The failure table: for every step of a transaction ({@link Outcomes.At}), every write kind and every cause (lease
 * lost, manifest superseded, S3 failure, S3 answer lost, deferred uploads gone, already decided, anything else), the
 * decision of {@link Outcomes#decide} is the cell's: its exception (type, step, message) and what the writer undoes first;
 * and the table has a row for every step, a cell for every cause.
 */
class OutcomesTableTest {
    private static final Path PACKAGE_INFO = Path.of("src/main/java/io/wrangler/commit/package-info.java");
    private static final String TABLE = "s3://bucket/table/";
    /** The steps at which a writer can find its lease lost while its manifest is in each state. */
    private static final Map<Manifest.State, List<WriteStep>> STEPS = Map.of(
            Manifest.State.STARTED, List.of(WriteStep.STAGE, WriteStep.COMMIT),
            Manifest.State.COMMITTED, List.of(WriteStep.PUBLISH),
            Manifest.State.PUBLISHED, List.of(WriteStep.PUBLISH, WriteStep.CATALOG, WriteStep.CLEANUP),
            Manifest.State.ABORTING, List.of(WriteStep.PUBLISH, WriteStep.CATALOG));

    /** One row of the state table: its states, its write kinds and what column S says. */
    private record Row(Set<Manifest.State> states, Set<WriteKind> kinds, String stalled) {
    }

    @Test
    void everyStateAndKindOfTheStateTableGetsTheOutcomeItsStalledWriterColumnSays() throws IOException {
        List<Row> rows = rows(Files.readString(PACKAGE_INFO));
        Set<String> covered = new HashSet<>();
        int checked = 0;
        for (Row row : rows) {
            for (Manifest.State state : row.states()) {
                for (WriteKind kind : row.kinds()) {
                    assertThat(covered.add(state + "/" + kind)).as("%s/%s in two rows of the state table", state, kind).isTrue();
                    for (WriteStep step : STEPS.get(state)) {
                        check(row, state, kind, step);
                        checked++;
                    }
                }
            }
        }
        for (Manifest.State state : Manifest.State.values()) {
            for (WriteKind kind : WriteKind.values()) {
                assertThat(covered).as("the state table has no row for %s of a %s", state, kind).contains(state + "/" + kind);
            }
        }
        assertThat(checked).isEqualTo(WriteKind.values().length * 8);
    }

    private static void check(Row row, Manifest.State state, WriteKind kind, WriteStep step) {
        RuntimeException e = new Outcomes(TABLE, kind).lost(state, step, new TableLease.Lost("the lease was taken over", null));
        String at = state + "/" + kind + " at " + step;
        assertThat(e).as(at).isInstanceOf(WranglerException.class);
        assertThat(((WranglerException) e).step()).as(at).isEqualTo(step);
        assertThat(e.getMessage()).as(at).startsWith("Cannot ").contains(TABLE + " (step: " + step + "): the lease was taken over.");
        if (row.stalled().contains("incomplete")) {
            assertThat(e).as(at).isInstanceOf(WriteIncompleteException.class);
            assertThat(((WriteIncompleteException) e).remaining()).as(at).isEqualTo(step);
            assertThat(e.getMessage()).as(at).contains("The write is committed");
        } else {
            assertThat(row.stalled()).as(at).contains("not applied");
            assertThat(e).as(at).isInstanceOf(CommitConflictException.class);
            assertThat(e.getMessage().toLowerCase(Locale.ROOT)).as(at).contains("rerunning it is safe");
        }
    }

    /** The causes of the failure table's columns, in order, each as a failure the runner can meet. */
    private static final List<String> CAUSES = List.of("lease lost", "manifest superseded", "S3 failure", "S3 answer lost",
            "deferred uploads gone", "already decided", "any other failure");

    private static Throwable cause(String column) {
        return switch (column) {
            case "lease lost" -> new TableLease.Lost("the lease was taken over", null);
            case "manifest superseded" -> new WriteLog.Superseded("the manifest of write W was changed by another actor");
            case "S3 failure" -> s3Failure();
            case "S3 answer lost" -> new WriteLog.Unknown(s3Failure());
            case "deferred uploads gone" -> new Publisher.UploadsLost(List.of("dt=1/part-00000-000-W.snappy.parquet"));
            case "already decided" -> new CatalogException(TABLE, WriteStep.CATALOG, "Cannot register " + TABLE + ": refused", null);
            default -> new IllegalStateException("a bug");
        };
    }

    private static S3Exception s3Failure() {
        return (S3Exception) S3Exception.builder().statusCode(503).message("Slow Down").requestId("REQ1")
                .awsErrorDetails(AwsErrorDetails.builder().errorCode("SlowDown").build()).build();
    }

    @Test
    void everyStepKindAndCauseOfTheFailureTableGetsTheDecisionItsCellSays() throws IOException {
        String text = Files.readString(PACKAGE_INFO).replaceAll("(?m)^\\s*\\*", "");
        int from = text.indexOf("<table>", text.indexOf("The failure table") - 200);
        String table = text.substring(from, text.indexOf("</table>", from));
        assertThat(table).contains("The failure table");
        Set<Outcomes.At> covered = EnumSet.noneOf(Outcomes.At.class);
        int checked = 0;
        for (String tr : table.split("<tr>")) {
            List<String> cells = cells(tr);
            if (cells.isEmpty() || tr.contains("<th>")) {
                continue;
            }
            assertThat(cells).as(tr).hasSize(2 + CAUSES.size());
            Outcomes.At at = Outcomes.At.valueOf(cells.get(0).toUpperCase(Locale.ROOT));
            assertThat(covered.add(at)).as("%s in two rows of the failure table", at).isTrue();
            Manifest.State state = cells.get(1).startsWith("(") ? null : Manifest.State.valueOf(cells.get(1));
            for (int c = 0; c < CAUSES.size(); c++) {
                String cell = cells.get(2 + c);
                if (cell.equals("-")) {
                    continue;
                }
                for (WriteKind kind : WriteKind.values()) {
                    checkCell(at, state, kind, CAUSES.get(c), forKind(cell, kind));
                    checked++;
                    if (at == Outcomes.At.END) {
                        // a write without a catalog reaches its end from COMMITTED (PUBLISHED skipped): the same cell
                        checkCell(at, Manifest.State.COMMITTED, kind, CAUSES.get(c), forKind(cell, kind));
                    }
                }
            }
        }
        assertThat(covered).as("every step of a transaction has a row").isEqualTo(EnumSet.allOf(Outcomes.At.class));
        assertThat(checked).as("cells checked").isGreaterThan(Outcomes.At.values().length * WriteKind.values().length * 3);
    }

    /** The part of a cell for one kind: "plain append: X; others: Y", or the whole cell. */
    private static String forKind(String cell, WriteKind kind) {
        if (!cell.startsWith("plain append:")) {
            return cell;
        }
        int others = cell.indexOf("; others:");
        return kind == WriteKind.PLAIN_APPEND ? cell.substring("plain append:".length(), others).strip()
                : cell.substring(others + "; others:".length()).strip();
    }

    private static Outcomes.Undo undo(String says) {
        if (says.contains("staging and record removed")) {
            return Outcomes.Undo.ABANDON;
        }
        if (says.contains("staging removed")) {
            return Outcomes.Undo.REMOVE_OWN;
        }
        if (says.contains("rolled back by itself and its emptied partitions unregistered")) {
            return Outcomes.Undo.ROLL_BACK_REGISTERED;
        }
        if (says.contains("rolled back by itself after a fence")) {
            return Outcomes.Undo.ROLL_BACK_FENCED;
        }
        if (says.contains("rolled back by itself")) {
            return Outcomes.Undo.ROLL_BACK;
        }
        return says.contains("complete if its files stand") ? Outcomes.Undo.CHECK_FILES : Outcomes.Undo.NONE;
    }

    private static void checkCell(Outcomes.At at, Manifest.State state, WriteKind kind, String column, String says) {
        Outcomes outcomes = new Outcomes(S3Location.parse(TABLE, WriteStep.VALIDATE), kind, "W", "catalog C");
        Throwable cause = cause(column);
        Outcomes.Decision d = outcomes.decide(at, state, cause);
        String where = at + "/" + kind + "/" + column + ": " + says;
        assertThat(d.undo()).as(where).isEqualTo(undo(says));
        RuntimeException e = d.exception();
        if (says.startsWith("as raised")) {
            assertThat(e).as(where).isSameAs(cause);
            return;
        }
        if (d.undo() == Outcomes.Undo.CHECK_FILES) {
            checkFilesStand(outcomes, at, state, where);
            return;
        }
        if (says.startsWith("complete")) {
            assertThat(e).as(where).isNull();
            return;
        }
        assertThat(e).as(where).isInstanceOf(WranglerException.class);
        assertThat(((WranglerException) e).step()).as(where).isEqualTo(at.step);
        assertThat(e.getMessage()).as(where).startsWith("Cannot ").contains(TABLE + " (step: " + at.step);
        if (says.startsWith("not applied") || says.startsWith("undone")) {
            assertThat(e).as(where).isInstanceOf(WriteNotAppliedException.class);
        } else if (says.startsWith("incomplete")) {
            assertThat(e).as(where).isInstanceOf(WriteIncompleteException.class);
            assertThat(((WriteIncompleteException) e).remaining()).as(where).isEqualTo(at.step);
        } else {
            assertThat(says).as(where).startsWith("unknown");
            assertThat(e).as(where).isInstanceOf(CommitStateUnknownException.class);
        }
        if (cause instanceof S3Exception || cause instanceof WriteLog.Unknown) {
            assertThat(e.getMessage()).as(where).contains("503"); // what S3 answered
        }
        if (says.startsWith("undone")) {
            assertThat(e.getMessage()).as(where).contains("The append was undone");
            RuntimeException undoFailed = d.exception(new IllegalStateException("S3 refused to delete"), true);
            assertThat(undoFailed).as(where).isInstanceOf(CommitConflictException.class);
            assertThat(undoFailed.getMessage()).as(where).contains("undoing it failed too (S3 refused to delete)")
                    .contains("finishes undoing it");
        }
        if (d.undo() == Outcomes.Undo.ROLL_BACK_FENCED) {
            assertThat(e.getMessage()).as(where).contains("The write was undone and the table is unchanged");
            assertThat(d.exception(new IllegalStateException("S3 refused"), true)).as(where)
                    .isInstanceOf(CommitConflictException.class).hasMessageContaining("undoing the write failed too (S3 refused)");
            // "if the fence or the claim fails: as lease lost"
            RuntimeException lost = d.exception(new TableLease.Lost("the lease was taken over", null), false);
            RuntimeException asLost = outcomes.decide(at, state, new TableLease.Lost("the lease was taken over", null)).exception();
            assertThat(lost).as(where).hasSameClassAs(asLost).hasMessage(asLost.getMessage());
        }
    }

    /** The end of a plain append superseded: complete only if its manifest was ended, not claimed, and its files stand. */
    private static void checkFilesStand(Outcomes outcomes, Outcomes.At at, Manifest.State state, String where) {
        Outcomes.Decision gone = outcomes.decide(at, state, new WriteLog.Superseded("the manifest of write W is gone"));
        assertThat(gone.exception(null, true)).as(where).isNull();
        assertThat(gone.exception(null, false)).as(where).isInstanceOf(CommitConflictException.class)
                .hasMessageContaining("The holder that took the table over undoes this append");
        assertThat(gone.exception((RuntimeException) s3Failure(), false)).as(where).isInstanceOf(CommitStateUnknownException.class);
        Outcomes.Decision claimed = outcomes.decide(at, state, cause("manifest superseded"));
        assertThat(claimed.exception(null, true)).as(where).isInstanceOf(CommitConflictException.class);
    }

    /** The rows of the state table (the first table of package-info.java) that name a manifest state. */
    private static List<Row> rows(String source) {
        String text = source.replaceAll("(?m)^\\s*\\*", "");
        int from = text.indexOf("<table>");
        String table = text.substring(from, text.indexOf("</table>", from));
        assertThat(table).contains("The state table");
        List<Row> rows = new ArrayList<>();
        for (String tr : table.split("<tr>")) {
            List<String> cells = cells(tr);
            if (cells.isEmpty() || tr.contains("<th>")) {
                continue;
            }
            Set<Manifest.State> states = EnumSet.noneOf(Manifest.State.class);
            for (Manifest.State s : Manifest.State.values()) {
                if (Pattern.compile("\\b" + s.name() + "\\b").matcher(cells.get(0)).find()) {
                    states.add(s);
                }
            }
            if (!states.isEmpty()) {
                rows.add(new Row(states, kinds(cells.get(0)), cells.get(cells.size() - 1)));
            }
        }
        assertThat(rows).hasSize(5);
        return rows;
    }

    private static List<String> cells(String tr) {
        List<String> cells = new ArrayList<>();
        Matcher m = Pattern.compile("<td[^>]*>(.*?)(?=<td|</tr>|$)", Pattern.DOTALL).matcher(tr);
        while (m.find()) {
            cells.add(m.group(1).replaceAll("<[^>]+>", "").replaceAll("\\s+", " ").strip());
        }
        return cells;
    }

    /** The kinds a row's first cell names: "plain append", "overwrite or keyed append", or none (every kind). */
    private static Set<WriteKind> kinds(String cell) {
        Set<WriteKind> kinds = EnumSet.noneOf(WriteKind.class);
        if (cell.contains("plain append")) {
            kinds.add(WriteKind.PLAIN_APPEND);
        }
        if (cell.contains("overwrite")) {
            // a compaction's replacement is an overwrite of its partitions
            kinds.addAll(EnumSet.of(WriteKind.OVERWRITE, WriteKind.OVERWRITE_PARTITIONS, WriteKind.REPLACEMENT));
        }
        if (cell.contains("keyed append")) {
            kinds.add(WriteKind.KEYED_APPEND);
        }
        return kinds.isEmpty() ? EnumSet.allOf(WriteKind.class) : kinds;
    }
}
