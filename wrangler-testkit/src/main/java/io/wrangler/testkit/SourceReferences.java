package io.wrangler.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * SourceReferences reads a module's main sources and finds, for every top-level class, the wrangler types it names: its
 * imports (static and wildcard ones too) and the fully qualified names in its code (comments and string literals are
 * left out). The package gates use it: which classes of the API name an internal package, which package cycles exist,
 * which packages a module's main sources reach. Source, not bytecode: a constant inlined by javac or a type named only
 * by its simple name in its own package is not an edge between packages anyway.
 */
public final class SourceReferences {
    /** {@code io.wrangler} followed by lower-case package segments and a type (upper-case first letter). */
    private static final Pattern NAME = Pattern.compile("\\bio\\.wrangler(?:\\.[a-z_][a-z0-9_]*)*(?:\\.[A-Z][A-Za-z0-9_]*|\\.\\*)");
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([a-z0-9_.]+)\\s*;", Pattern.MULTILINE);

    private static final Pattern SIMPLE_NAME = Pattern.compile("\\b[A-Z][A-Za-z0-9_]*\\b");

    /** By class ({@code io.wrangler.WriteBuilder}): the wrangler names it references, sorted. */
    private final Map<String, Set<String>> references;
    /** By class: the classes of its own package it names by their simple name, sorted. */
    private final Map<String, Set<String>> local;

    private SourceReferences(Map<String, Set<String>> references, Map<String, Set<String>> local) {
        this.references = references;
        this.local = local;
    }

    /** The references of every {@code .java} file under {@code sourceRoot} ({@code src/main/java}), package-info excluded. */
    public static SourceReferences of(Path sourceRoot) {
        Map<String, Set<String>> refs = new TreeMap<>();
        Map<String, String> codes = new TreeMap<>();
        try (Stream<Path> files = Files.walk(sourceRoot)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java")
                    && !p.getFileName().toString().equals("package-info.java")).sorted()::iterator) {
                String code = code(Files.readString(f));
                Matcher pkg = PACKAGE.matcher(code);
                String name = (pkg.find() ? pkg.group(1) + "." : "") + f.getFileName().toString().replace(".java", "");
                Set<String> names = new TreeSet<>();
                Matcher m = NAME.matcher(code);
                while (m.find()) {
                    if (m.start() > 0 && code.charAt(m.start() - 1) == '.') {
                        continue; // part of a longer name (com.example.io.wrangler...)
                    }
                    names.add(m.group());
                }
                names.removeIf(n -> n.equals(name) || packageOf(n).equals(packageOf(name)));
                refs.put(name, Collections.unmodifiableSet(names));
                codes.put(name, code);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (refs.isEmpty()) {
            throw new IllegalArgumentException("no Java source under " + sourceRoot.toAbsolutePath());
        }
        return new SourceReferences(Collections.unmodifiableMap(refs), Collections.unmodifiableMap(local(codes)));
    }

    /** By class: the other top-level classes of its package whose simple name appears in its code. */
    private static Map<String, Set<String>> local(Map<String, String> codes) {
        Map<String, Set<String>> out = new TreeMap<>();
        codes.forEach((cls, code) -> {
            String pkg = packageOf(cls);
            Set<String> named = new TreeSet<>();
            Matcher m = SIMPLE_NAME.matcher(code);
            while (m.find()) {
                String candidate = (pkg.isEmpty() ? "" : pkg + ".") + m.group();
                if (!candidate.equals(cls) && codes.containsKey(candidate)) {
                    named.add(candidate);
                }
            }
            out.put(cls, Collections.unmodifiableSet(named));
        });
        return out;
    }

    /** By class: the wrangler names it references outside its own package. */
    public Map<String, Set<String>> references() {
        return references;
    }

    /**
     * By class: the classes of its own package it names by their simple name ({@code WriteBuilder} naming
     * {@code S3Parquet}), which {@link #references()} leaves out; comments and strings do not count here either.
     */
    public Map<String, Set<String>> localReferences() {
        return local;
    }

    /** The package of a class or of a referenced name ({@code io.wrangler.commit.WriteSpec} -> {@code io.wrangler.commit}). */
    public static String packageOf(String name) {
        String[] parts = name.split("\\.");
        StringBuilder p = new StringBuilder();
        for (String s : parts) {
            if (s.equals("*") || Character.isUpperCase(s.charAt(0))) {
                break;
            }
            p.append(p.length() == 0 ? "" : ".").append(s);
        }
        return p.toString();
    }

    /**
     * The cycles of the graph whose nodes {@code node} makes of classes and referenced names (a package, or a class kept
     * apart from its package), leaving out the edges {@code ignored} says so of (class, referenced name): one cycle per
     * strongly connected component of more than one node that {@code watched} accepts, each as a shortest path from its
     * first node {@code start} accepts through its first other node {@code via} accepts and back ({@code a -> b -> a}), with
     * the reference that makes each step.
     */
    public List<String> cycles(Function<String, String> node, java.util.function.BiPredicate<String, String> ignored,
                               java.util.function.Predicate<Set<String>> watched, java.util.function.Predicate<String> start,
                               java.util.function.Predicate<String> via) {
        // edge (from node, to node) -> the first reference that makes it, for the message
        Map<String, Map<String, String>> edges = new TreeMap<>();
        references.forEach((cls, names) -> {
            String from = node.apply(cls);
            edges.computeIfAbsent(from, k -> new TreeMap<>());
            for (String n : names) {
                String to = node.apply(n);
                if (!to.equals(from) && !ignored.test(cls, n)) {
                    edges.get(from).putIfAbsent(to, simple(cls) + " names " + n);
                    edges.computeIfAbsent(to, k -> new TreeMap<>());
                }
            }
        });
        List<String> out = new ArrayList<>();
        for (Set<String> component : components(edges)) {
            if (component.size() < 2) {
                continue;
            }
            if (watched.test(component)) {
                String from = component.stream().filter(start).findFirst().orElse(component.iterator().next());
                String through = component.stream().filter(via).filter(n -> !n.equals(from)).findFirst().orElse(from);
                out.add(path(edges, component, from, through));
            }
        }
        return out;
    }

    private static String simple(String cls) {
        return cls.substring(cls.lastIndexOf('.') + 1);
    }

    /** A shortest cycle from {@code start} through {@code through} back to {@code start} inside {@code component}, each step with its reference. */
    private static String path(Map<String, Map<String, String>> edges, Set<String> component, String start, String through) {
        List<String> nodes = new ArrayList<>(shortest(edges, component, start, through));
        if (!start.equals(through)) {
            List<String> back = shortest(edges, component, through, start);
            nodes.addAll(back.subList(1, back.size()));
        }
        StringBuilder s = new StringBuilder(nodes.get(0));
        for (int i = 1; i < nodes.size(); i++) {
            s.append(" -(").append(edges.get(nodes.get(i - 1)).get(nodes.get(i))).append(")-> ").append(nodes.get(i));
        }
        return s.toString();
    }

    /** The nodes of a shortest path from {@code from} to {@code to} inside {@code component} (from == to: a cycle). */
    private static List<String> shortest(Map<String, Map<String, String>> edges, Set<String> component, String from, String to) {
        Map<String, String> parent = new HashMap<>();
        Deque<String> queue = new ArrayDeque<>(List.of(from));
        String last = null;
        while (!queue.isEmpty() && last == null) {
            String at = queue.poll();
            for (String next : edges.get(at).keySet()) {
                if (!component.contains(next)) {
                    continue;
                }
                if (next.equals(to)) {
                    last = at;
                    break;
                }
                if (!parent.containsKey(next) && !next.equals(from)) {
                    parent.put(next, at);
                    queue.add(next);
                }
            }
        }
        List<String> nodes = new ArrayList<>();
        nodes.add(to);
        for (String n = last; n != null && !n.equals(from); n = parent.get(n)) {
            nodes.add(0, n);
        }
        nodes.add(0, from);
        return nodes;
    }

    /** Tarjan's strongly connected components, iteration order of {@code edges}. */
    private static List<Set<String>> components(Map<String, Map<String, String>> edges) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> out = new ArrayList<>();
        int[] counter = {0};
        for (String v : edges.keySet()) {
            if (!index.containsKey(v)) {
                strongConnect(v, edges, index, low, stack, onStack, out, counter);
            }
        }
        return out;
    }

    private static void strongConnect(String v, Map<String, Map<String, String>> edges, Map<String, Integer> index,
                                      Map<String, Integer> low, Deque<String> stack, Set<String> onStack, List<Set<String>> out,
                                      int[] counter) {
        index.put(v, counter[0]);
        low.put(v, counter[0]++);
        stack.push(v);
        onStack.add(v);
        for (String w : edges.get(v).keySet()) {
            if (!index.containsKey(w)) {
                strongConnect(w, edges, index, low, stack, onStack, out, counter);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            out.add(component);
        }
    }

    /** By referenced package: the classes that name it, for a module-level check ("which packages do these sources reach"). */
    public Map<String, Set<String>> byPackage() {
        Map<String, Set<String>> out = new LinkedHashMap<>();
        references.forEach((cls, names) -> names.forEach(n -> out.computeIfAbsent(packageOf(n), k -> new TreeSet<>()).add(cls + " names " + n)));
        return out;
    }

    /** The source with comments, string and character literals (text blocks too) blanked out, line breaks kept. */
    static String code(String src) {
        StringBuilder out = new StringBuilder(src.length());
        int i = 0;
        int n = src.length();
        while (i < n) {
            char c = src.charAt(i);
            if (c == '/' && i + 1 < n && src.charAt(i + 1) == '/') {
                while (i < n && src.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && src.charAt(i + 1) == '*') {
                int end = src.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                blank(src, i, end, out);
                i = end;
            } else if (src.startsWith("\"\"\"", i)) {
                int end = src.indexOf("\"\"\"", i + 3);
                end = end < 0 ? n : end + 3;
                blank(src, i, end, out);
                i = end;
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && src.charAt(j) != c && src.charAt(j) != '\n') {
                    j += src.charAt(j) == '\\' ? 2 : 1;
                }
                out.append(c).append(c);
                i = Math.min(n, j + 1);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static void blank(String src, int from, int to, StringBuilder out) {
        for (int k = from; k < to; k++) {
            out.append(src.charAt(k) == '\n' ? '\n' : ' ');
        }
    }
}
