package io.wrangler.commit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The build gate of issues 25 and 33 on the commit engine, the reader and compaction: no method or constructor of
 * {@code io.wrangler.commit}, {@code io.wrangler.layout}, {@code io.wrangler.read}, {@code io.wrangler.compact} or {@code io.wrangler.merge} is longer than
 * 60 lines (signature to closing brace) or takes more than 6 parameters. It reads the sources (comments, strings and
 * character literals blanked, braces counted), so that a step that grows past the limit is split, not hidden.
 */
class MethodSizeGateTest {
    static final int MAX_LINES = 60;
    static final int MAX_PARAMETERS = 6;
    /** The packages under the gate: the commit engine, the table's layout below it, the reader, compaction, merge, the catalog operations. */
    private static final List<Path> SOURCES = List.of(Path.of("src/main/java/io/wrangler/commit"), Path.of("src/main/java/io/wrangler/layout"),
            Path.of("src/main/java/io/wrangler/read"), Path.of("src/main/java/io/wrangler/compact"),
            Path.of("src/main/java/io/wrangler/merge"), Path.of("src/main/java/io/wrangler/tableops"));
    private static final Set<String> NOT_METHODS = Set.of("if", "for", "while", "switch", "catch", "synchronized", "try", "else",
            "do", "return", "new", "throw", "super", "this");
    /** A method or constructor header ending right before its body's brace: name, parameters, optional throws clause. */
    private static final Pattern HEADER = Pattern.compile("(\\w+)\\s*\\(([^()]*(?:\\([^()]*\\)[^()]*)*)\\)\\s*(?:throws\\s+[\\w.,\\s]+)?$");

    @Test
    void noMethodOfTheCommitEngineReaderOrCompactionIsLongerThan60LinesOrTakesMoreThan6Parameters() throws IOException {
        List<String> violations = new ArrayList<>();
        for (Path dir : SOURCES) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path p : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                    violations.addAll(violations(dir.getFileName() + "/" + p.getFileName(), Files.readString(p)));
                }
            }
        }
        assertThat(violations).as("methods of io.wrangler.{commit,layout,read,compact,merge,tableops} over %d lines or %d parameters", MAX_LINES,
                MAX_PARAMETERS).isEmpty();
    }

    @Test
    void theScanFindsALongMethodAndOneWithTooManyParameters() {
        StringBuilder source = new StringBuilder("final class Long {\n    /** { not a brace */\n    void longOne(int a) {\n");
        for (int i = 0; i < 60; i++) {
            source.append("        String s").append(i).append(" = \"}\";\n");
        }
        source.append("    }\n\n    private static int many(int a, java.util.Map<String, Integer> b, int c, int d, int e, int f,\n"
                + "                            int g) throws java.io.IOException {\n        Runnable r = () -> { };\n"
                + "        return a;\n    }\n\n    record Wide(int a, int b, int c, int d, int e, int f, int g) {\n    }\n}\n");
        assertThat(violations("Long.java", source.toString())).containsExactly(
                "Long.java:3 longOne: 62 lines", "Long.java:66 many: 7 parameters");
    }

    /** The methods of one source file over the limits, as {@code File.java:line name: what}. */
    static List<String> violations(String file, String text) {
        String code = blank(text);
        List<String> out = new ArrayList<>();
        for (int open = code.indexOf('{'); open >= 0; open = code.indexOf('{', open + 1)) {
            int from = Math.max(Math.max(code.lastIndexOf(';', open - 1), code.lastIndexOf('}', open - 1)),
                    code.lastIndexOf('{', open - 1)) + 1;
            String head = code.substring(from, open).strip();
            Matcher m = HEADER.matcher(head);
            if (!m.find() || NOT_METHODS.contains(m.group(1)) || head.contains("->")
                    || head.matches("(?s).*\\b(record|class|enum|interface|new)\\b.*")) {
                continue;
            }
            int start = line(code, code.indexOf(head, from) + m.start());
            int lines = line(code, close(code, open)) - start + 1;
            int parameters = parameters(m.group(2));
            if (lines > MAX_LINES) {
                out.add(file + ":" + start + " " + m.group(1) + ": " + lines + " lines");
            }
            if (parameters > MAX_PARAMETERS) {
                out.add(file + ":" + start + " " + m.group(1) + ": " + parameters + " parameters");
            }
        }
        return out;
    }

    /** The source with comments, string and character literals blanked (newlines kept, so line numbers hold). */
    private static String blank(String s) {
        StringBuilder b = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            int end;
            if (s.startsWith("//", i)) {
                end = s.indexOf('\n', i);
                end = end < 0 ? s.length() : end;
            } else if (s.startsWith("/*", i)) {
                end = s.indexOf("*/", i + 2) + 2;
            } else if (s.startsWith("\"\"\"", i)) {
                end = s.indexOf("\"\"\"", i + 3) + 3;
            } else if (c == '"' || c == '\'') {
                end = i + 1;
                while (s.charAt(end) != c) {
                    end += s.charAt(end) == '\\' ? 2 : 1;
                }
                end++;
            } else {
                b.append(c);
                i++;
                continue;
            }
            for (int j = i; j < end; j++) {
                b.append(s.charAt(j) == '\n' ? '\n' : ' ');
            }
            i = end;
        }
        return b.toString();
    }

    private static int close(String code, int open) {
        int depth = 0;
        for (int i = open; i < code.length(); i++) {
            if (code.charAt(i) == '{') {
                depth++;
            } else if (code.charAt(i) == '}' && --depth == 0) {
                return i;
            }
        }
        throw new IllegalStateException("unbalanced braces after offset " + open);
    }

    private static int line(String code, int offset) {
        int n = 1;
        for (int i = 0; i < offset; i++) {
            if (code.charAt(i) == '\n') {
                n++;
            }
        }
        return n;
    }

    /** The number of parameters of a parameter list, its commas inside generics not counted. */
    private static int parameters(String list) {
        if (list.isBlank()) {
            return 0;
        }
        int n = 1;
        int depth = 0;
        for (char c : list.toCharArray()) {
            if (c == '<') {
                depth++;
            } else if (c == '>') {
                depth--;
            } else if (c == ',' && depth == 0) {
                n++;
            }
        }
        return n;
    }
}
