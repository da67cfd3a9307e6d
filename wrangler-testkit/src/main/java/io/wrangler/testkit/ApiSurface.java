package io.wrangler.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * ApiSurface checks a module's exported signatures: every public or protected member of every public type in the
 * exported packages may name only types of those packages, of the JDK, or of the dependencies the API is made of
 * (Arrow for columnar input, the AWS SDK's clients). A signature that names an internal type (a parquet-java type, an
 * S3 model type, a class of a non-exported wrangler package) is a promise the module did not mean to make; the build
 * fails on it. Each module's test calls {@link #violations} with its own packages.
 */
public final class ApiSurface {
    private final Set<String> exported;
    private final List<String> allowed;

    private ApiSurface(Set<String> exported, List<String> allowed) {
        this.exported = exported;
        this.allowed = allowed;
    }

    /**
     * The public methods of {@code types} that no test under {@code testRoots} (each a {@code src/test/java}; those that
     * do not exist are skipped) calls by name, as {@code Type.name(ParamType, ...)}, sorted: empty when every public
     * method has a test. An instance method counts as called where a test has {@code .name(} or {@code ::name}, a static
     * one where it has {@code Type.name(}, {@code Type::name} or a static import of it (comments and string literals left
     * out). Not counted: an enum's {@code values} and {@code valueOf}, which the language calls; overrides of a
     * supertype's method (a JDK type's, such as {@code close} or {@code toString}; an SPI's, which the engine calls through
     * its interface); an annotation's elements count where they are set by name; {@code allowed} ({@code Type.name}, nested types as {@code Outer.Inner.name}) names the few others.
     */
    public static List<String> uncalled(List<Class<?>> types, List<Path> testRoots, Set<String> allowed) {
        return CalledMethods.uncalled(types, testRoots, allowed);
    }

    /**
     * The members of the public types of {@code exported} (packages, as loaded from the class path of {@code anchor}'s
     * module) whose signatures name a type outside those packages, the JDK and {@code allowed}: each a prefix of
     * qualified names when it ends with a dot ({@code "org.apache.arrow."}), else a class or a package by its exact
     * name (another module's exported package). Empty when the surface is sealed.
     */
    public static List<String> violations(Class<?> anchor, Set<String> exported, List<String> allowed) {
        ApiSurface s = new ApiSurface(exported, allowed);
        List<String> out = new ArrayList<>();
        for (Class<?> c : s.publicTypes(anchor)) {
            s.check(c, out);
        }
        return out;
    }

    /**
     * The types README lists for {@code pkg}: the backquoted names on its row of the table under "Public API", the row
     * whose first cell is the package in backquotes. Nested types are written {@code Outer.Inner}.
     */
    public static Set<String> documented(Path readme, String pkg) {
        try {
            for (String line : Files.readAllLines(readme)) {
                if (line.startsWith("| `" + pkg + "` |")) {
                    String rest = line.substring(line.indexOf('|', 2) + 1);
                    rest = rest.substring(rest.indexOf('|') + 1); // past the module's cell
                    Set<String> names = new TreeSet<>();
                    Matcher m = Pattern.compile("`([A-Za-z0-9_.]+)`").matcher(rest);
                    while (m.find()) {
                        names.add(m.group(1));
                    }
                    return names;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException(readme + " has no row for " + pkg + " under Public API");
    }

    /** The names {@link #documented} compares with: {@code Outer.Inner} for a nested type. */
    public static Set<String> simpleNames(List<Class<?>> types, String pkg) {
        Set<String> names = new TreeSet<>();
        for (Class<?> c : types) {
            if (c.getPackageName().equals(pkg)) {
                names.add(c.getName().substring(pkg.length() + 1).replace('$', '.'));
            }
        }
        return names;
    }

    /** The public types (nested ones too) of the exported packages, read from {@code anchor}'s class folder or jar. */
    public static List<Class<?>> publicTypes(Class<?> anchor, Set<String> exported) {
        return new ApiSurface(exported, List.of()).publicTypes(anchor);
    }

    private List<Class<?>> publicTypes(Class<?> anchor) {
        Set<String> names = new TreeSet<>();
        URL where = anchor.getProtectionDomain().getCodeSource().getLocation();
        try {
            Path root = Path.of(where.toURI());
            for (String pkg : exported) {
                if (Files.isDirectory(root)) {
                    Path dir = root.resolve(pkg.replace('.', '/'));
                    if (Files.isDirectory(dir)) {
                        try (Stream<Path> files = Files.list(dir)) {
                            files.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(".class"))
                                    .forEach(f -> names.add(pkg + "." + f.substring(0, f.length() - 6)));
                        }
                    }
                } else {
                    try (JarFile jar = new JarFile(root.toFile())) {
                        String prefix = pkg.replace('.', '/') + "/";
                        jar.stream().map(e -> e.getName())
                                .filter(n -> n.startsWith(prefix) && n.endsWith(".class") && n.indexOf('/', prefix.length()) < 0)
                                .forEach(n -> names.add(n.substring(0, n.length() - 6).replace('/', '.')));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<Class<?>> types = new ArrayList<>();
        for (String n : names) {
            if (n.endsWith("package-info")) {
                continue;
            }
            try {
                Class<?> c = Class.forName(n, false, anchor.getClassLoader());
                if (isVisible(c)) {
                    types.add(c);
                }
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
        return types;
    }

    /** Public, and every enclosing type public too: reachable from outside the module. */
    private static boolean isVisible(Class<?> c) {
        for (Class<?> x = c; x != null; x = x.getDeclaringClass()) {
            if (!Modifier.isPublic(x.getModifiers())) {
                return false;
            }
        }
        return !c.isAnonymousClass() && !c.isSynthetic();
    }

    private void check(Class<?> c, List<String> out) {
        String where = c.getName();
        if (c.getGenericSuperclass() != null) {
            type(c.getGenericSuperclass(), where + " extends", out);
        }
        for (Type t : c.getGenericInterfaces()) {
            type(t, where + " implements", out);
        }
        for (TypeVariable<?> v : c.getTypeParameters()) {
            bounds(v, where, out);
        }
        boolean subclassable = !Modifier.isFinal(c.getModifiers()) && !c.isEnum() && !c.isRecord() && !c.isSealed();
        for (Field f : c.getDeclaredFields()) {
            if (visible(f.getModifiers(), subclassable) && !f.isSynthetic()) {
                type(f.getGenericType(), where + "." + f.getName(), out);
            }
        }
        for (Constructor<?> k : c.getDeclaredConstructors()) {
            if (visible(k.getModifiers(), subclassable) && !k.isSynthetic()) {
                for (Type t : k.getGenericParameterTypes()) {
                    type(t, where + ".<init>", out);
                }
                for (Type t : k.getGenericExceptionTypes()) {
                    type(t, where + ".<init> throws", out);
                }
            }
        }
        for (Method m : c.getDeclaredMethods()) {
            if (!visible(m.getModifiers(), subclassable) || m.isSynthetic() || m.isBridge()) {
                continue;
            }
            String name = where + "." + m.getName() + "()";
            type(m.getGenericReturnType(), name, out);
            for (Type t : m.getGenericParameterTypes()) {
                type(t, name, out);
            }
            for (Type t : m.getGenericExceptionTypes()) {
                type(t, name + " throws", out);
            }
            for (TypeVariable<?> v : m.getTypeParameters()) {
                bounds(v, name, out);
            }
        }
    }

    private static boolean visible(int modifiers, boolean subclassable) {
        return Modifier.isPublic(modifiers) || (subclassable && Modifier.isProtected(modifiers));
    }

    private void bounds(TypeVariable<?> v, String where, List<String> out) {
        for (Type b : v.getBounds()) {
            type(b, where + " <" + v.getName() + ">", out);
        }
    }

    private void type(Type t, String where, List<String> out) {
        if (t instanceof Class<?> c) {
            while (c.isArray()) {
                c = c.getComponentType();
            }
            if (!c.isPrimitive() && !allowed(c)) {
                out.add(where + " names " + c.getName());
            }
        } else if (t instanceof ParameterizedType p) {
            type(p.getRawType(), where, out);
            for (Type a : p.getActualTypeArguments()) {
                type(a, where, out);
            }
        } else if (t instanceof GenericArrayType g) {
            type(g.getGenericComponentType(), where, out);
        } else if (t instanceof WildcardType w) {
            for (Type b : w.getUpperBounds()) {
                type(b, where, out);
            }
            for (Type b : w.getLowerBounds()) {
                type(b, where, out);
            }
        }
        // a TypeVariable names no type of its own; its bounds are checked where it is declared
    }

    private boolean allowed(Class<?> c) {
        String name = c.getName();
        if (name.startsWith("java.")) {
            return true;
        }
        if (exported.contains(c.getPackageName())) {
            return isVisible(c);
        }
        for (String a : allowed) {
            if (a.endsWith(".") ? name.startsWith(a) : name.equals(a) || c.getPackageName().equals(a)) {
                return true;
            }
        }
        return false;
    }
}
