package io.wrangler.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.CommitConflictException;
import io.wrangler.WranglerException;
import io.wrangler.WriteIncompleteException;
import io.wrangler.WriteStep;
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

/**
 * The state table of package-info.java, read from its HTML, against {@link Outcomes}: for every state a writer that lost
 * the table can be in (column S), every write kind the row names and every step it can lose the table at in that state,
 * the exception Outcomes gives is the table's outcome ("not applied": a CommitConflictException that says a rerun is
 * safe; "incomplete": a WriteIncompleteException whose remaining step is that step), and the table covers every state
 * and kind exactly once.
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
