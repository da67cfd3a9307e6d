package io.wrangler.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A parsed {@code GetPartitions} expression: the SQL-like WHERE clause Glue accepts, with {@code = <> != < > <= >=},
 * {@code AND}, {@code OR}, {@code NOT}, {@code IN}, {@code BETWEEN}, {@code LIKE}, {@code IS [NOT] NULL} and
 * parentheses. Integer-typed keys compare as numbers, all others as strings (dates in {@code yyyy-MM-dd} sort as text).
 */
final class GlueExpression {
    interface Node {
        boolean test(Map<String, String> values, Map<String, String> types);
    }

    private final String text;
    private int pos;

    private GlueExpression(String text) {
        this.text = text;
    }

    static Node parse(String text) {
        GlueExpression p = new GlueExpression(text);
        Node n = p.or();
        p.skipSpace();
        if (p.pos != text.length()) {
            throw new IllegalArgumentException("Unsupported expression, unexpected text at " + p.pos + ": " + text.substring(p.pos));
        }
        return n;
    }

    private Node or() {
        Node left = and();
        while (keyword("OR")) {
            Node l = left;
            Node r = and();
            left = (v, t) -> l.test(v, t) || r.test(v, t);
        }
        return left;
    }

    private Node and() {
        Node left = not();
        while (keyword("AND")) {
            Node l = left;
            Node r = not();
            left = (v, t) -> l.test(v, t) && r.test(v, t);
        }
        return left;
    }

    private Node not() {
        if (keyword("NOT")) {
            Node inner = not();
            return (v, t) -> !inner.test(v, t);
        }
        return primary();
    }

    private Node primary() {
        skipSpace();
        if (peek('(')) {
            pos++;
            Node inner = or();
            expect(')');
            return inner;
        }
        String column = identifier();
        if (keyword("IS")) {
            boolean negate = keyword("NOT");
            if (!keyword("NULL")) {
                throw error("NULL");
            }
            return (v, t) -> (v.get(column) == null) != negate;
        }
        boolean negate = keyword("NOT");
        if (keyword("IN")) {
            expect('(');
            List<String> options = new ArrayList<>();
            do {
                options.add(literal());
            } while (consume(','));
            expect(')');
            return (v, t) -> options.stream().anyMatch(o -> compare(column, v, t, o) == 0) != negate;
        }
        if (keyword("BETWEEN")) {
            String low = literal();
            if (!keyword("AND")) {
                throw error("AND");
            }
            String high = literal();
            return (v, t) -> (v.get(column) != null && compare(column, v, t, low) >= 0 && compare(column, v, t, high) <= 0) != negate;
        }
        if (keyword("LIKE")) {
            String pattern = literal();
            String regex = "\\Q" + pattern.replace("%", "\\E.*\\Q").replace("_", "\\E.\\Q") + "\\E";
            return (v, t) -> (v.get(column) != null && v.get(column).matches(regex)) != negate;
        }
        if (negate) {
            throw error("IN, BETWEEN or LIKE after NOT");
        }
        String op = operator();
        String value = literal();
        return (v, t) -> {
            if (v.get(column) == null) {
                return false;
            }
            int c = compare(column, v, t, value);
            return switch (op) {
                case "=" -> c == 0;
                case "<>", "!=" -> c != 0;
                case "<" -> c < 0;
                case ">" -> c > 0;
                case "<=" -> c <= 0;
                default -> c >= 0;
            };
        };
    }

    private static int compare(String column, Map<String, String> values, Map<String, String> types, String literal) {
        String actual = values.get(column);
        if (!types.containsKey(column)) {
            throw new IllegalArgumentException("Unknown column '" + column + "' in expression");
        }
        String type = types.get(column);
        if (actual == null) {
            return -1;
        }
        if (type.equals("int") || type.equals("bigint") || type.equals("smallint") || type.equals("tinyint")) {
            try {
                return Long.compare(Long.parseLong(actual), Long.parseLong(literal));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Cannot compare " + type + " column '" + column + "' with '" + literal + "'");
            }
        }
        return actual.compareTo(literal);
    }

    private String operator() {
        skipSpace();
        for (String op : new String[] {"<=", ">=", "<>", "!=", "=", "<", ">"}) {
            if (text.startsWith(op, pos)) {
                pos += op.length();
                return op;
            }
        }
        throw error("a comparison operator");
    }

    private String literal() {
        skipSpace();
        if (peek('\'')) {
            StringBuilder sb = new StringBuilder();
            pos++;
            while (pos < text.length()) {
                char c = text.charAt(pos++);
                if (c == '\'') {
                    if (peek('\'')) {
                        sb.append('\'');
                        pos++;
                        continue;
                    }
                    return sb.toString();
                }
                sb.append(c);
            }
            throw error("a closing quote");
        }
        int start = pos;
        while (pos < text.length() && (Character.isDigit(text.charAt(pos)) || text.charAt(pos) == '-' || text.charAt(pos) == '.')) {
            pos++;
        }
        if (start == pos) {
            throw error("a value");
        }
        return text.substring(start, pos);
    }

    private String identifier() {
        skipSpace();
        if (peek('`')) {
            int end = text.indexOf('`', pos + 1);
            String id = text.substring(pos + 1, end);
            pos = end + 1;
            return id;
        }
        int start = pos;
        while (pos < text.length() && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '_')) {
            pos++;
        }
        if (start == pos) {
            throw error("a column name");
        }
        return text.substring(start, pos);
    }

    private boolean keyword(String word) {
        skipSpace();
        int end = pos + word.length();
        if (text.regionMatches(true, pos, word, 0, word.length()) && (end == text.length() || !Character.isLetterOrDigit(text.charAt(end)))) {
            pos = end;
            return true;
        }
        return false;
    }

    private boolean consume(char c) {
        skipSpace();
        if (peek(c)) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!consume(c)) {
            throw error("'" + c + "'");
        }
    }

    private boolean peek(char c) {
        return pos < text.length() && text.charAt(pos) == c;
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private IllegalArgumentException error(String expected) {
        return new IllegalArgumentException("Unsupported expression, expected " + expected + " at " + pos + ": " + text);
    }
}
