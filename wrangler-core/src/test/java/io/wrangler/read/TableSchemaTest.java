package io.wrangler.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;

/** The one comparison of column types across a table's files (issue 31 item 6). */
class TableSchemaTest {
    private static Field column(String parquet) {
        return ParquetArrow.field(MessageTypeParser.parseMessageType("message m { " + parquet + " }").getType(0));
    }

    @Test
    void aListsElementIsNamedElementWhateverTheFileCallsIt() {
        Field wrangler = column("optional group tags (LIST) { repeated group list { optional binary element (STRING); } }");
        Field pyarrow = column("optional group tags (LIST) { repeated group list { optional binary item (STRING); } }");
        assertThat(pyarrow).isEqualTo(wrangler);
        assertThat(wrangler.getChildren().get(0).getName()).isEqualTo("element");
    }

    @Test
    void innerNamesAndNullabilityDoNotMakeTwoTypes() {
        Field nullable = column("optional group tags (LIST) { repeated group list { optional binary element (STRING); } }");
        Field required = column("optional group tags (LIST) { repeated group list { required binary element (STRING); } }");
        Field arrow = new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE),
                List.of(new Field("$data$", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null)));

        assertThat(TableSchema.merge(required, nullable)).isEqualTo(nullable);
        assertThat(TableSchema.merge(nullable, required)).isEqualTo(nullable);
        assertThat(TableSchema.covers(nullable, required)).isTrue();
        assertThat(TableSchema.covers(required, nullable)).as("a non-null element cannot hold a file's nulls").isFalse();
        assertThat(TableSchema.covers(nullable, arrow)).isTrue();
    }

    @Test
    void otherTypesAndOtherStructFieldsAreTwoTypes() {
        Field strings = column("optional group tags (LIST) { repeated group list { optional binary element (STRING); } }");
        Field ints = column("optional group tags (LIST) { repeated group list { optional int32 element; } }");
        Field xy = column("optional group p { optional int32 x; optional int32 y; }");
        Field xz = column("optional group p { optional int32 x; optional int32 z; }");
        Field map = column("optional group m (MAP) { repeated group key_value { required binary key (STRING); optional int32 value; } }");
        Field mapRequired = column("optional group m (MAP) { repeated group map { required binary k (STRING); required int32 v; } }");

        assertThat(TableSchema.merge(strings, ints)).isNull();
        assertThat(TableSchema.merge(xy, xz)).as("a struct's fields are matched by name").isNull();
        assertThat(TableSchema.merge(mapRequired, map)).isEqualTo(map);
    }
}
