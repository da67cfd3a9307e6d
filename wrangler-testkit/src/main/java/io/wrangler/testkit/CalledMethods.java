package io.wrangler.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * CalledMethods is the gate that every public method of an API has a test ({@link ApiSurface#uncalled}): it reads the test sources of the modules and
 * reports each public method of the given types whose name no test calls. Called means, in a test's code (comments and
 * string literals left out): {@code .name(} or {@code ::name} for an instance method; for a static one, its type's simple
 * name before it ({@code Type.name(}, {@code Type::name}) or a static import of it. By name, not by resolving overloads:
 * fast and simple, and a new public method whose name no test mentions fails it. Not counted: methods the language
 * calls without their name (an enum's {@code values}/{@code valueOf}; an annotation's elements count where they are set
 * by name), and methods that override a supertype's (a JDK type's, such as {@code close()} of try-with-resources or
 * {@code toString()}; an SPI's, such as a catalog's {@code addPartitions}, which the engine calls through its interface
 * and whose tests go through the engine).
 */
final class CalledMethods {
    private static final Pattern COMMENT_OR_STRING = Pattern.compile(
            "//[^\\n]*|/\\*.*?\\*/|\"\"\"(?:.|\\n)*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])*'", Pattern.DOTALL);

    private CalledMethods() {
    }

    /**
     * The public methods of {@code types} that no test under {@code testRoots} calls, as {@code Type.name(ParamType, ...)},
     * sorted; {@code allowed} names methods ({@code Type.name}) that cannot be called by name, each with its reason at the
     * caller.
     */
    static List<String> uncalled(List<Class<?>> types, List<Path> testRoots, Set<String> allowed) {
        String code = testCode(testRoots);
        Set<String> out = new TreeSet<>();
        for (Class<?> type : types) {
            for (Method m : type.getDeclaredMethods()) {
                if (!Modifier.isPublic(m.getModifiers()) || m.isSynthetic() || m.isBridge() || implicit(type, m)
                        || overridesSuper(type, m) || allowed.contains(simple(type) + "." + m.getName())) {
                    continue;
                }
                if (!called(code, type, m)) {
                    out.add(simple(type) + "." + m.getName() + Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName)
                            .collect(Collectors.joining(", ", "(", ")")));
                }
            }
        }
        return new ArrayList<>(out);
    }

    /** The code of every {@code .java} file under the roots (those that exist), comments and string literals left out. */
    static String testCode(List<Path> roots) {
        StringBuilder out = new StringBuilder();
        for (Path root : roots) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java")).sorted()::iterator) {
                    out.append(COMMENT_OR_STRING.matcher(Files.readString(f)).replaceAll(" ")).append('\n');
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (out.length() == 0) {
            throw new IllegalArgumentException("no test source under " + roots);
        }
        return out.toString();
    }

    private static boolean called(String code, Class<?> type, Method m) {
        String name = Pattern.quote(m.getName());
        if (type.isAnnotation()) {
            // an annotation's element is set by name where the annotation is used: @Decimal(precision = 10, ...)
            return Pattern.compile("@(?:[\\w.]*\\.)?" + Pattern.quote(type.getSimpleName()) + "\\s*\\([^)]*\\b" + name + "\\s*=")
                    .matcher(code).find();
        }
        if (!Modifier.isStatic(m.getModifiers())) {
            return Pattern.compile("(\\.|::)\\s*" + name + "\\b").matcher(code).find();
        }
        String owner = Pattern.quote(type.getSimpleName());
        if (Pattern.compile("\\b" + owner + "\\s*(\\.|::)\\s*" + name + "\\b").matcher(code).find()) {
            return true;
        }
        String qualified = Pattern.quote(type.getCanonicalName());
        Matcher imported = Pattern.compile("import\\s+static\\s+" + qualified + "\\.(" + name + "|\\*)\\s*;").matcher(code);
        return imported.find();
    }

    /** An enum's {@code values()} and {@code valueOf(String)}: the compiler's, used by switches and parsers. */
    private static boolean implicit(Class<?> type, Method m) {
        return type.isEnum() && (m.getName().equals("values") && m.getParameterCount() == 0
                || m.getName().equals("valueOf") && m.getParameterCount() == 1);
    }

    /** True when {@code m} overrides a method of a class or interface the type extends or implements. */
    private static boolean overridesSuper(Class<?> type, Method m) {
        if (Modifier.isStatic(m.getModifiers())) {
            return false;
        }
        List<Class<?>> supers = new ArrayList<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            supers.add(c);
        }
        supers.add(Object.class);
        for (int i = 0; i < supers.size(); i++) {
            Class<?> s = supers.get(i);
            for (Class<?> itf : s.getInterfaces()) {
                if (!supers.contains(itf)) {
                    supers.add(itf);
                }
            }
        }
        for (Class<?> s : supers) {
            if (s == type) {
                continue;
            }
            for (Method sm : s.getMethods()) {
                if (sm.getName().equals(m.getName()) && sm.getParameterCount() == m.getParameterCount() && assignable(sm, m)) {
                    return true; // erased generics too: Comparable.compareTo(Object) for compareTo(CommitMark)
                }
            }
        }
        return false;
    }

    private static boolean assignable(Method declared, Method m) {
        for (int i = 0; i < m.getParameterCount(); i++) {
            if (!declared.getParameterTypes()[i].isAssignableFrom(m.getParameterTypes()[i])) {
                return false;
            }
        }
        return true;
    }

    private static String simple(Class<?> type) {
        String n = type.getName();
        return n.substring(n.lastIndexOf('.') + 1).replace('$', '.');
    }
}
