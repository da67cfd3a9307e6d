package io.wrangler.commit;

import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A write's columns ({@link Planner#validateSchema}): {@code data} and {@code partitions} as the input names them (to find
 * the vectors), {@code dataOut}, {@code partitionsOut} and {@code bucketOut} as the files, paths and catalog name them.
 */
record Columns(List<Field> data, List<Field> partitions, List<Field> dataOut, List<Field> partitionsOut, List<Field> bucket,
               List<String> bucketOut) {
    List<String> partitionNames() {
        return partitionsOut.stream().map(Field::getName).toList();
    }
}
