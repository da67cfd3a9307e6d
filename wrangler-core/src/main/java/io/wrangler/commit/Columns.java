package io.wrangler.commit;

import io.wrangler.encoding.FileLayout;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A write's columns ({@link Planner#validateSchema}): {@code data} and {@code partitions} as the input names them (to find
 * the vectors); {@code dataOut} as the files name them (the input's spelling, or the catalog's name where it differs by
 * more than case, docs/glue.md "Names"); {@code dataCatalog}, {@code partitionsOut} and {@code bucketOut} as the
 * catalog names them (and the partition folders: without a catalog, the input's names); {@code layout} the write's file
 * layout with its columns as the files name them.
 */
record Columns(List<Field> data, List<Field> partitions, List<Field> dataOut, List<Field> dataCatalog, List<Field> partitionsOut,
               List<Field> bucket, List<String> bucketOut, FileLayout layout) {
    List<String> partitionNames() {
        return partitionsOut.stream().map(Field::getName).toList();
    }
}
