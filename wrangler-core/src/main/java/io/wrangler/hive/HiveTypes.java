package io.wrangler.hive;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * HiveTypes reads the Hive type strings that Glue and Athena use ({@code bigint}, {@code array<struct<a:int>>},
 * {@code decimal(12,2)}) as Arrow fields, and names Arrow fields the same way, for casts and their messages.
 */
public final class HiveTypes {
    private HiveTypes() {
    }

    /** Raised for a type string that is not a Hive type this reader knows. */
    public static final class Unknown extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Unknown(String message) {
            super(message);
        }
    }

    /** The Arrow field named {@code name} of the Hive type {@code type} (nullable, as Hive columns are). */
    public static Field parse(String name, String type) {
        Parser p = new Parser(type);
        Field f = p.field(name);
        p.skipSpaces();
        if (p.pos != type.length()) {
            throw new Unknown("'" + type + "' is not a Hive type (unexpected '" + type.substring(p.pos) + "')");
        }
        return f;
    }

    /**
     * Raised for an Arrow type that no Hive type holds (an unsigned 64-bit integer, a float16, the null type, times,
     * intervals, unions...): the message names the column path and says what to do.
     */
    public static final class Unsupported extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Unsupported(String message) {
            super(message);
        }
    }

    /**
     * The Hive type string of an Arrow field, as Glue registers it and as casts compare it: the one rule of wrangler
     * from Arrow to the types of Glue and Athena (the rule of awswrangler's {@code pyarrow2athena}). An unsigned integer
     * becomes the signed type of twice its width, which holds all its values; an unsigned 64-bit integer and a float16
     * have no Hive type and are refused ({@code dtype} casts them to one: {@code decimal(20,0)}, {@code float}).
     *
     * @throws Unsupported for a type no Hive type holds, naming the field's path
     */
    public static String of(Field f) {
        return of(f, f.getName());
    }

    /** As {@link #of(Field)}, the field being at {@code path} ({@code items.element.price}) for the message. */
    public static String of(Field f, String path) {
        return name(f, path, true);
    }

    /**
     * The Hive type of {@code f} for a message: as {@link #of(Field)}, with the Arrow name of a part that has no Hive type
     * in its place ({@code uint64}, {@code array<float16>}); never throws.
     */
    public static String describe(Field f) {
        return name(f, f.getName(), false);
    }

    private static String name(Field f, String path, boolean strict) {
        ArrowType t = f.getType();
        switch (t.getTypeID()) {
            case Int: {
                ArrowType.Int i = (ArrowType.Int) t;
                // an unsigned integer needs the signed type of twice its width
                int bits = i.getIsSigned() ? i.getBitWidth() : i.getBitWidth() * 2;
                return switch (bits) {
                    case 8 -> "tinyint";
                    case 16 -> "smallint";
                    case 32 -> "int";
                    case 64 -> "bigint";
                    default -> refuse(strict, "uint" + i.getBitWidth(), "column '" + path + "' is an unsigned 64-bit integer, which no "
                            + "Glue or Athena type holds: cast it to a signed 64-bit integer if its values fit, or ask for decimal(20,0) "
                            + "with dtype, which holds every value");
                };
            }
            case FloatingPoint:
                return switch (((ArrowType.FloatingPoint) t).getPrecision()) {
                    case SINGLE -> "float";
                    case DOUBLE -> "double";
                    case HALF -> refuse(strict, "float16", "column '" + path + "' is a float16, which no Glue or Athena type holds: cast "
                            + "it to float32, or ask for float or double with dtype");
                };
            case Bool:
                return "boolean";
            case Utf8:
            case LargeUtf8:
                return "string";
            case Binary:
            case LargeBinary:
            case FixedSizeBinary:
                return "binary";
            case Decimal: {
                ArrowType.Decimal d = (ArrowType.Decimal) t;
                String decimal = "decimal(" + d.getPrecision() + "," + d.getScale() + ")";
                return d.getPrecision() <= 38 ? decimal : refuse(strict, decimal, "column '" + path + "' is " + decimal + ", but Glue, "
                        + "Athena and Spark hold at most 38 digits: reduce the precision to 38 or less");
            }
            case Date:
                return "date";
            case Timestamp:
                return "timestamp";
            case List:
            case LargeList:
            case FixedSizeList:
                return "array<" + name(f.getChildren().get(0), path + ".element", strict) + ">";
            case Map: {
                Field entries = f.getChildren().get(0);
                return "map<" + name(entries.getChildren().get(0), path + ".key", strict) + ","
                        + name(entries.getChildren().get(1), path + ".value", strict) + ">";
            }
            case Struct:
                return f.getChildren().stream().map(c -> c.getName() + ":" + name(c, path + "." + c.getName(), strict))
                        .collect(Collectors.joining(",", "struct<", ">"));
            case Null:
                return refuse(strict, "null", "column '" + path + "' has no type (Arrow null): give it a type, for example a nullable Utf8");
            default:
                return refuse(strict, t.toString(), "column '" + path + "' has the Arrow type " + t + ", which no Glue type holds: cast it "
                        + "to a supported type");
        }
    }

    private static String refuse(boolean strict, String arrowName, String message) {
        if (strict) {
            throw new Unsupported(message);
        }
        return arrowName;
    }

    private static final class Parser {
        final String s;
        int pos;

        Parser(String s) {
            this.s = s;
        }

        void skipSpaces() {
            while (pos < s.length() && s.charAt(pos) == ' ') {
                pos++;
            }
        }

        String word() {
            skipSpaces();
            int start = pos;
            while (pos < s.length() && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_')) {
                pos++;
            }
            if (start == pos) {
                throw new Unknown("'" + s + "' is not a Hive type (a name is missing at position " + start + ")");
            }
            return s.substring(start, pos);
        }

        void expect(char c) {
            skipSpaces();
            if (pos >= s.length() || s.charAt(pos) != c) {
                throw new Unknown("'" + s + "' is not a Hive type ('" + c + "' expected at position " + pos + ")");
            }
            pos++;
        }

        boolean peek(char c) {
            skipSpaces();
            return pos < s.length() && s.charAt(pos) == c;
        }

        int number() {
            String w = word();
            try {
                return Integer.parseInt(w);
            } catch (NumberFormatException e) {
                throw new Unknown("'" + s + "' is not a Hive type ('" + w + "' is not a number)");
            }
        }

        Field field(String name) {
            String w = word().toLowerCase(Locale.ROOT);
            ArrowType leaf = switch (w) {
                case "tinyint" -> new ArrowType.Int(8, true);
                case "smallint" -> new ArrowType.Int(16, true);
                case "int", "integer" -> new ArrowType.Int(32, true);
                case "bigint" -> new ArrowType.Int(64, true);
                case "float" -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
                case "double" -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
                case "boolean" -> ArrowType.Bool.INSTANCE;
                case "string" -> ArrowType.Utf8.INSTANCE;
                case "binary" -> ArrowType.Binary.INSTANCE;
                case "date" -> new ArrowType.Date(DateUnit.DAY);
                case "timestamp" -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
                default -> null;
            };
            if (leaf != null) {
                return new Field(name, FieldType.nullable(leaf), null);
            }
            switch (w) {
                case "decimal": {
                    int precision = 10;
                    int scale = 0;
                    if (peek('(')) {
                        expect('(');
                        precision = number();
                        if (peek(',')) {
                            expect(',');
                            scale = number();
                        }
                        expect(')');
                    }
                    if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
                        throw new Unknown("'" + s + "' is not a Hive type (decimal(" + precision + "," + scale + ") is out of range)");
                    }
                    return new Field(name, FieldType.nullable(new ArrowType.Decimal(precision, scale, 128)), null);
                }
                case "array": {
                    expect('<');
                    Field element = field("element");
                    expect('>');
                    return new Field(name, FieldType.nullable(ArrowType.List.INSTANCE), List.of(element));
                }
                case "map": {
                    expect('<');
                    Field key = field("key");
                    expect(',');
                    Field value = field("value");
                    expect('>');
                    Field nonNullKey = new Field("key", FieldType.notNullable(key.getType()), key.getChildren());
                    Field entries = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(nonNullKey, value));
                    return new Field(name, FieldType.nullable(new ArrowType.Map(false)), List.of(entries));
                }
                case "struct": {
                    expect('<');
                    List<Field> children = new ArrayList<>();
                    do {
                        if (!children.isEmpty()) {
                            expect(',');
                        }
                        String child = word();
                        expect(':');
                        children.add(field(child));
                    } while (peek(','));
                    expect('>');
                    return new Field(name, FieldType.nullable(ArrowType.Struct.INSTANCE), children);
                }
                default:
                    throw new Unknown("'" + s + "' is not a Hive type wrangler writes ('" + w + "' is unknown; char and varchar are not "
                            + "written, use string)");
            }
        }
    }
}
