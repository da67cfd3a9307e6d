package io.wrangler.glue;

import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** GlueTypes maps Arrow types to the Hive type strings Glue and Athena use ({@code bigint}, {@code array<struct<a:int>>}). */
final class GlueTypes {
    private GlueTypes() {
    }

    /** Raised for a type Glue cannot hold; the message says what to do. */
    static final class Unsupported extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Unsupported(String message) {
            super(message);
        }
    }

    static String of(Field field) {
        return of(field, field.getName());
    }

    private static String of(Field field, String path) {
        ArrowType t = field.getType();
        switch (t.getTypeID()) {
            case Int: {
                ArrowType.Int i = (ArrowType.Int) t;
                int bits = i.getBitWidth();
                if (i.getIsSigned()) {
                    return switch (bits) {
                        case 8 -> "tinyint";
                        case 16 -> "smallint";
                        case 32 -> "int";
                        default -> "bigint";
                    };
                }
                return switch (bits) {
                    case 8 -> "smallint";
                    case 16 -> "int";
                    case 32 -> "bigint";
                    default -> throw new Unsupported("column '" + path + "' is an unsigned 64-bit integer, which no Glue or Athena "
                            + "type holds: cast it to a signed 64-bit integer if its values fit, or to decimal(20,0)");
                };
            }
            case FloatingPoint:
                return switch (((ArrowType.FloatingPoint) t).getPrecision()) {
                    case SINGLE -> "float";
                    case DOUBLE -> "double";
                    case HALF -> throw new Unsupported("column '" + path + "' is a float16: cast it to float32");
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
                return "decimal(" + d.getPrecision() + "," + d.getScale() + ")";
            }
            case Date:
                return "date";
            case Timestamp:
                return "timestamp";
            case List:
            case LargeList:
            case FixedSizeList:
                return "array<" + of(field.getChildren().get(0), path + ".element") + ">";
            case Map: {
                Field entries = field.getChildren().get(0);
                return "map<" + of(entries.getChildren().get(0), path + ".key") + "," + of(entries.getChildren().get(1), path + ".value") + ">";
            }
            case Struct:
                return field.getChildren().stream().map(c -> c.getName() + ":" + of(c, path + "." + c.getName()))
                        .collect(Collectors.joining(",", "struct<", ">"));
            case Null:
                throw new Unsupported("column '" + path + "' has no type (Arrow null): give it a type, for example a nullable Utf8");
            default:
                throw new Unsupported("column '" + path + "' has the Arrow type " + t + ", which no Glue type holds: cast it to a supported type");
        }
    }
}
