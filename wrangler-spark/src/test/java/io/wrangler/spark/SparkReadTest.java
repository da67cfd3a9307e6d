package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.InvalidReadException;
import io.wrangler.ReadException;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.testkit.LocalGlue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code spark.read().format("wrangler")}: the table as wrangler-core's reader sees it, read by core's S3 client and
 * decoder on the executors (no Hadoop S3 connector), by path and by Glue table; values compared with Spark's own writes,
 * with core's reader and with DuckDB on the same objects.
 */
class SparkReadTest {
    private static LocalGlue glue;

    @BeforeAll
    static void start() {
        glue = LocalGlue.start();
    }

    @AfterAll
    static void stop() {
        glue.close();
    }

    private static Dataset<Row> read(String uri) {
        return SparkLake.spark().read().format("wrangler").options(SparkLake.options()).load(uri);
    }

    private static List<String> rows(Dataset<Row> df, String orderBy, String... columns) {
        List<String> out = new ArrayList<>();
        for (Row r : df.orderBy(org.apache.spark.sql.functions.col(orderBy).asc_nulls_last()).selectExpr(columns).collectAsList()) {
            out.add(r.toSeq().mkString("|"));
        }
        return out;
    }

    @Test
    void everyTypeOfASparkWriteReadsBackWithExactValues() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/types/";
        SparkParquet.write(SparkLake.spark().sql(SparkTypesTestValues.SQL + " UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, "
                + "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'p1'").coalesce(1)).partitionBy("part").s3(SparkLake.settings()).to(uri);
        Dataset<Row> df = read(uri);
        assertThat(df.schema().simpleString()).isEqualTo("struct<b:tinyint,s:smallint,i:int,l:bigint,f:float,d:double,bo:boolean,"
                + "d9:decimal(9,2),d18:decimal(18,4),d38:decimal(38,10),str:string,bin:binary,dt:date,ts:timestamp,ntz:timestamp_ntz,"
                + "arr:array<int>,st:struct<a:int,b:string>,m:map<string,double>,nested:array<struct<x:array<string>>>,part:string>");
        String[] columns = {"b", "s", "i", "l", "f", "d", "bo", "CAST(d9 AS STRING)", "CAST(d18 AS STRING)", "CAST(d38 AS STRING)", "str",
            "hex(bin)", "CAST(dt AS STRING)", "unix_micros(ts)", "CAST(ntz AS STRING)", "to_json(arr)", "to_json(st)", "to_json(m)",
            "to_json(nested)", "part"};
        List<String> wrangler = rows(df, "b", columns);
        assertThat(wrangler).containsExactly("1|-2|3|4000000000|1.5|2.25|true|123.45|-12345678901234.5678|"
                + "1234567890123456789012345678.0123456789|héllo ✓|00FF10|1900-03-01|-1|2024-01-15 10:11:12.123456|[1,null,3]|"
                + "{\"a\":1,\"b\":\"x\"}|{\"k1\":1.5,\"k2\":null}|[{\"x\":[\"a\",\"b\"]}]|p1",
                "null|null|null|null|null|null|null|null|null|null|null|null|null|null|null|null|null|null|null|p1");
        // filters on data columns go to core's row filter of each task, and no row that passes is lost there (Spark filters again)
        Map<String, Long> counts = new java.util.LinkedHashMap<>();
        for (String where : List.of("NOT (i <=> 3)", "ts < TIMESTAMP'1970-01-01 00:00:00'", "dt = DATE'1900-03-01'", "d38 > 0",
                "str IN ('héllo ✓', 'x')", "ntz >= TIMESTAMP_NTZ'2024-01-15 10:11:12.123456'", "f = 1.5", "bo AND bin = X'00FF10'",
                "str LIKE 'hé%'", "d9 IS NULL")) {
            Dataset<Row> filtered = df.where(where);
            assertThat(filtered.queryExecution().executedPlan().toString()).as(where).contains(" rows [");
            counts.put(where, filtered.count());
        }
        assertThat(counts.values()).containsExactly(1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L);
        // Spark's own Parquet reader, on a local copy of the same objects, sees the same values
        assertThat(rows(SparkLake.sparkRead(bucket, "types/"), "b", columns)).isEqualTo(wrangler);
        // and so does DuckDB
        assertThat(SparkLake.query(bucket, "types/", "SELECT CAST(d38 AS VARCHAR), epoch_us(ts), CAST(ntz AS VARCHAR) FROM t WHERE b = 1"))
                .containsExactly(List.of("1234567890123456789012345678.0123456789", -1L, "2024-01-15 10:11:12.123456"));
    }

    @Test
    void filesOtherEnginesWroteReadWithTheTypesCoreGivesThem() throws Exception {
        String bucket = SparkLake.bucket();
        Path dir = Files.createTempDirectory("duck-write");
        Path file = dir.resolve("part-0.parquet");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            s.execute("SET TimeZone = 'UTC'");
            s.execute("COPY (SELECT CAST(i AS UTINYINT) AS u8, CAST(i * 200 AS USMALLINT) AS u16, CAST(i * 4000000 AS UINTEGER) AS u32, "
                    + "CAST(18446744073709551615 - i AS UBIGINT) AS u64, CAST(TIMESTAMP '2024-02-29 12:34:56.789' AS TIMESTAMP_MS) AS ms, "
                    + "CAST(TIMESTAMP '1969-12-31 23:59:59.999999' AS TIMESTAMP_NS) + INTERVAL (i) MICROSECOND AS ns, "
                    + "TIMESTAMPTZ '2024-01-01 00:00:00+00' AS tz, CAST(i / 10 AS DECIMAL(4,1)) AS dec, [i, NULL] AS arr, "
                    + "MAP {'k': i} AS m, {'a': i, 'b': 'x' || i} AS st FROM range(250, 256) r(i)) TO '" + file + "' (FORMAT parquet)");
        }
        SparkLake.s3().put(bucket, "duck/part-0.parquet", Files.readAllBytes(file));
        String uri = "s3://" + bucket + "/duck/";
        Dataset<Row> df = read(uri);
        assertThat(df.schema().simpleString()).isEqualTo("struct<u8:smallint,u16:int,u32:bigint,u64:decimal(20,0),ms:timestamp_ntz,"
                + "ns:timestamp_ntz,tz:timestamp,dec:decimal(4,1),arr:array<bigint>,m:map<string,bigint>,st:struct<a:bigint,b:string>>");
        List<String> spark = rows(df, "u8", "u8", "u16", "u32", "CAST(u64 AS STRING)",
                "date_format(ms, 'yyyy-MM-dd HH:mm:ss.SSS')", "date_format(ns, 'yyyy-MM-dd HH:mm:ss.SSSSSS')",
                "unix_micros(tz)", "CAST(dec AS STRING)", "to_json(arr)", "to_json(m)", "to_json(st)");
        List<String> duck = new ArrayList<>();
        for (List<Object> r : SparkLake.query(bucket, "duck/", "SELECT u8, u16, u32, CAST(u64 AS VARCHAR), strftime(ms, '%Y-%m-%d %H:%M:%S.%g'), "
                + "strftime(ns, '%Y-%m-%d %H:%M:%S.%f'), epoch_us(tz), CAST(dec AS VARCHAR) FROM t ORDER BY u8")) {
            duck.add(r.get(0) + "|" + r.get(1) + "|" + r.get(2) + "|" + r.get(3) + "|" + r.get(4) + "|" + r.get(5) + "|" + r.get(6) + "|" + r.get(7));
        }
        assertThat(spark).hasSize(6);
        for (int i = 0; i < 6; i++) {
            assertThat(spark.get(i)).startsWith(duck.get(i) + "|");
        }
        assertThat(spark.get(5)).isEqualTo("255|51000|1020000000|18446744073709551360|2024-02-29 12:34:56.789|1970-01-01 00:00:00.000254|"
                + "1704067200000000|25.5|[255,null]|{\"k\":255}|{\"a\":255,\"b\":\"x255\"}");
    }

    /**
     * Files Spark's own Parquet writer wrote (its statistics, its page indexes, small pages) read by core with row filters:
     * the rows equal DuckDB's WHERE over the same objects, for predicates on a sorted column, a clustered one with nulls,
     * a double with NaN and a string.
     */
    @Test
    void filesSparkWroteReadWithRowFiltersAsDuckDbFiltersThem() throws Exception {
        String bucket = SparkLake.bucket();
        Path dir = Files.createTempDirectory("spark-write");
        SparkLake.spark().range(0, 6000).selectExpr("CAST(id AS INT) AS k", "IF(id % 7 = 0, NULL, id DIV 100) AS g",
                        "IF(id % 11 = 0, CAST('NaN' AS DOUBLE), id * 0.5) AS x", "concat('s', CAST(id % 37 AS STRING)) AS s")
                .repartition(2).sortWithinPartitions("k").write().option("parquet.page.size", "512")
                .option("parquet.page.row.count.limit", "200").parquet(dir.resolve("t").toString());
        try (var files = Files.walk(dir.resolve("t"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".parquet")).toList()) {
                SparkLake.s3().put(bucket, "spark/" + f.getFileName(), Files.readAllBytes(f));
            }
        }
        String uri = "s3://" + bucket + "/spark/";
        Map<String, io.wrangler.RowFilter> filters = new java.util.LinkedHashMap<>();
        filters.put("k = 4321", io.wrangler.RowFilter.eq("k", 4321));
        filters.put("k >= 100 AND k < 180", io.wrangler.RowFilter.and(io.wrangler.RowFilter.ge("k", 100), io.wrangler.RowFilter.lt("k", 180)));
        filters.put("g = 12 OR g IS NULL AND k < 300", io.wrangler.RowFilter.or(io.wrangler.RowFilter.eq("g", 12L),
                io.wrangler.RowFilter.and(io.wrangler.RowFilter.isNull("g"), io.wrangler.RowFilter.lt("k", 300))));
        filters.put("x > 2990", io.wrangler.RowFilter.gt("x", 2990.0));
        filters.put("x <> 1.5", io.wrangler.RowFilter.ne("x", 1.5));
        filters.put("s IN ('s3', 's30') AND k > 5000", io.wrangler.RowFilter.and(io.wrangler.RowFilter.in("s", "s3", "s30"),
                io.wrangler.RowFilter.gt("k", 5000)));
        filters.put("NOT (k <= 5990)", io.wrangler.RowFilter.not(io.wrangler.RowFilter.le("k", 5990)));
        for (Map.Entry<String, io.wrangler.RowFilter> e : filters.entrySet()) {
            List<Object> duck = new ArrayList<>();
            for (List<Object> r : SparkLake.query(bucket, "spark/", "SELECT k FROM t WHERE " + e.getKey() + " ORDER BY k")) {
                duck.add(r.get(0));
            }
            List<Object> core = new ArrayList<>();
            try (var reader = S3Parquet.read(uri).s3(SparkLake.s3().client()).where(e.getValue()).open()) {
                while (reader.loadNextBatch()) {
                    var k = reader.getVectorSchemaRoot().getVector("k");
                    for (int i = 0; i < reader.getVectorSchemaRoot().getRowCount(); i++) {
                        core.add(k.getObject(i));
                    }
                }
            }
            core.sort(java.util.Comparator.comparing(o -> ((Number) o).longValue()));
            assertThat(core).as(e.getKey()).hasSameSizeAs(duck);
            assertThat(core.stream().map(String::valueOf).toList()).as(e.getKey()).isEqualTo(duck.stream().map(String::valueOf).toList());
        }
    }

    /** A partitioned table written by core, registered in Glue: Spark reads it by Glue table and by path, as core does. */
    record Sale(String id, long cents, LocalDate dt, String country, int shard) {
    }

    private static List<Sale> sales() {
        List<Sale> out = new ArrayList<>();
        String[] countries = {"RU", "DE", "FR"};
        for (int i = 0; i < 60; i++) {
            out.add(new Sale("s" + i, i * 100L + 1, LocalDate.of(2026, 10, 1 + i % 3), countries[i % 3 == 0 ? i % 2 : 2], i % 4));
        }
        return out;
    }

    @Test
    void readsByGlueTableAndByPathWhatCoreReads() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/sales/";
        S3Parquet.write(sales()).partitionBy("dt", "country").mode(WriteMode.OVERWRITE)
                .catalog(GlueCatalog.of(glue.client()).table("shop", "sales").createDatabase(true)).s3(SparkLake.s3().client()).to(uri);
        Map<String, String> byGlue = new HashMap<>(SparkLake.options());
        byGlue.put("glue.endpoint", glue.endpoint().toString());
        byGlue.put("glue.database", "shop");
        byGlue.put("glue.table", "sales");
        Dataset<Row> glueRead = SparkLake.spark().read().format("wrangler").options(byGlue).load();
        List<String> core = new ArrayList<>();
        for (Sale s : S3Parquet.read(GlueCatalog.of(glue.client()).table("shop", "sales")).s3(SparkLake.s3().client()).toList(Sale.class)) {
            core.add(s.id() + "|" + s.cents() + "|" + s.dt() + "|" + s.country());
        }
        core.sort(null);
        List<String> spark = new ArrayList<>(rows(glueRead, "id", "id", "cents", "CAST(dt AS STRING)", "country"));
        spark.sort(null);
        assertThat(spark).hasSize(60).isEqualTo(core);
        assertThat(glueRead.schema().simpleString()).isEqualTo("struct<id:string,cents:bigint,shard:int,dt:date,country:string>");
        // by path, without the catalog: the partition columns typed from their folder names, as core types them
        Dataset<Row> pathRead = read(uri);
        assertThat(pathRead.schema().simpleString()).isEqualTo("struct<id:string,cents:bigint,shard:int,dt:date,country:string>");
        List<String> byPath = new ArrayList<>(rows(pathRead, "id", "id", "cents", "CAST(dt AS STRING)", "country"));
        byPath.sort(null);
        assertThat(byPath).isEqualTo(core);
        List<String> duck = new ArrayList<>();
        for (List<Object> r : SparkLake.query(bucket, "sales/", "SELECT id, cents, CAST(dt AS VARCHAR), country FROM t")) {
            duck.add(r.get(0) + "|" + r.get(1) + "|" + r.get(2) + "|" + r.get(3));
        }
        duck.sort(null);
        assertThat(byPath).isEqualTo(duck);
        // aggregates over the columnar batches
        Map<String, Long> sums = new java.util.TreeMap<>();
        sales().forEach(s -> sums.merge(s.country(), s.cents(), Long::sum));
        assertThat(pathRead.groupBy("country").sum("cents").orderBy("country").collectAsList()).extracting(Row::toString)
                .containsExactlyElementsOf(sums.entrySet().stream().map(e -> "[" + e.getKey() + "," + e.getValue() + "]").toList());
    }

    @Test
    void partitionFiltersPruneTheListingAndSparkStillFiltersTheRows() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/sales/";
        S3Parquet.write(sales()).partitionBy("dt", "country", "shard").s3(SparkLake.s3().client()).to(uri);
        Dataset<Row> df = read(uri);
        // after the DataFrame is loaded (its schema read), an object that is no Parquet file lands in partitions the filters
        // leave out: a query that lists them fails on it, one that prunes them never opens it
        byte[] junk = "not parquet".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        SparkLake.s3().put(bucket, "sales/dt=2026-10-02/country=FR/shard=1/junk.parquet", junk);
        SparkLake.s3().put(bucket, "sales/dt=2026-10-01/country=DE/shard=3/junk.parquet", junk);
        Dataset<Row> ru = df.where("country = 'RU'");
        assertThat(ru.queryExecution().executedPlan().toString()).contains("partitions [EqualTo(country,RU)]");
        assertThat(rows(ru, "id", "id", "country")).containsExactlyElementsOf(expected(s -> s.country().equals("RU")));
        Dataset<Row> dated = df.where("dt IN (DATE'2026-10-01', DATE'2026-10-03') AND shard = 0 AND cents > 1000");
        assertThat(rows(dated, "id", "id", "country")).containsExactlyElementsOf(expected(s -> !s.dt().equals(LocalDate.of(2026, 10, 2))
                && s.shard() == 0 && s.cents() > 1000));
        // a data column's filter prunes nothing: the query reads every partition, the junk too
        assertThatThrownBy(() -> df.where("cents > 1000").count()).hasStackTraceContaining("junk.parquet");
    }

    private static List<String> expected(java.util.function.Predicate<Sale> keep) {
        return sales().stream().filter(keep).map(s -> s.id() + "|" + s.country()).sorted((a, b) -> a.compareTo(b)).toList();
    }

    /** The scan as Spark drives it, step by step, so that the table can change between the driver's listing and a task. */
    private static Scan scan(String uri, Map<String, String> extra) {
        Map<String, String> options = new HashMap<>(SparkLake.options());
        options.put("path", uri);
        options.putAll(extra);
        CaseInsensitiveStringMap map = new CaseInsensitiveStringMap(options);
        WranglerSource source = new WranglerSource();
        StructType schema = source.inferSchema(map);
        ScanBuilder b = ((WranglerTable) source.getTable(schema, new org.apache.spark.sql.connector.expressions.Transform[0], options))
                .newScanBuilder(map);
        return b.build();
    }

    @Test
    void aFileRemovedAfterTheListingFailsTheTaskNeverReadsPartially() throws Exception {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/sales/";
        S3Parquet.write(sales()).partitionBy("country").s3(SparkLake.s3().client()).to(uri);
        SparkLake.spark(); // the session the scan plans in
        Scan scan = scan(uri, Map.of());
        InputPartition[] parts = scan.toBatch().planInputPartitions();
        assertThat(parts).hasSize(3);
        // a concurrent overwrite replaces the table after the driver listed it
        S3Parquet.write(sales().subList(0, 5)).partitionBy("country").mode(WriteMode.OVERWRITE).s3(SparkLake.s3().client()).to(uri);
        ReadPartition first = (ReadPartition) parts[0];
        org.apache.spark.sql.connector.read.PartitionReaderFactory tasks = scan.toBatch().createReaderFactory();
        String key = first.part().files().get(0).key();
        assertThatThrownBy(() -> {
            try (PartitionReader<ColumnarBatch> r = tasks.createColumnarReader(first)) {
                while (r.next()) {
                    r.get();
                }
            }
        }).isInstanceOf(ReadException.class).hasMessageStartingWith("Cannot read " + uri + ": the table changed while it was read: s3://"
                + bucket + "/" + key + ", listed by this read, was removed by another write (an overwrite, a keyed rerun or a compaction) "
                + "before it was read (").hasMessageEndingWith("). A read changes nothing: read again, and it reads the table as it is now.");
        // a DataFrame planned after the overwrite reads the table as after it, whole
        assertThat(read(uri).count()).isEqualTo(5);
    }

    @Test
    void badOptionsAreRefusedBeforeAnyRequest() {
        String bucket = SparkLake.bucket();
        assertThatThrownBy(() -> SparkLake.spark().read().format("wrangler").options(SparkLake.options()).load())
                .isInstanceOf(InvalidReadException.class).hasMessage("Cannot read the wrangler data source (step: validate): it names no table. "
                        + "Give the table's URI (load(\"s3://bucket/prefix/\")) or its Glue table (the options glue.database and glue.table).");
        assertThatThrownBy(() -> SparkLake.spark().read().format("wrangler").options(SparkLake.options()).option("glue.table", "t").load())
                .isInstanceOf(InvalidReadException.class).hasMessage("Cannot read the wrangler data source (step: validate): only one of the "
                        + "options glue.database and glue.table is set. Set both, or neither.");
        assertThatThrownBy(() -> SparkLake.spark().read().format("wrangler").options(SparkLake.options()).option("retryAttempts", "x")
                .load("s3://" + bucket + "/t/")).isInstanceOf(InvalidReadException.class).hasMessage("Cannot read s3://" + bucket + "/t/ "
                        + "(step: validate): the option retryAttempts is 'x', which is not a whole number. Give a number, such as 134217728.");
        assertThatThrownBy(() -> read("s3://" + bucket + "/nothing/")).isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read s3://" + bucket + "/nothing/ (step: list): there is no table at this prefix: no object lies under it "
                        + "(no data file, no _tmp/). Check the URI, or pass catalog(...) for a table whose partitions the catalog registers "
                        + "elsewhere.");
        S3Parquet.write(sales()).s3(SparkLake.s3().client()).to("s3://" + bucket + "/t/");
        assertThatThrownBy(() -> SparkLake.spark().read().format("wrangler").schema("id STRING").options(SparkLake.options())
                .load("s3://" + bucket + "/t/").count()).isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read s3://" + bucket + "/t/ (step: validate): a schema was given (.schema(...)); the wrangler data source "
                        + "reads the table's own schema. Remove .schema(...), and select or cast columns after load().");
    }

    @Test
    void noHadoopS3ConnectorIsOnTheClassPathAndTheReadNeedsNone() {
        assertThatThrownBy(() -> Class.forName("org.apache.hadoop.fs.s3a.S3AFileSystem")).isInstanceOf(ClassNotFoundException.class);
        String bucket = SparkLake.bucket();
        S3Parquet.write(sales()).partitionBy("country").s3(SparkLake.s3().client()).to("s3://" + bucket + "/t/");
        assertThatThrownBy(() -> SparkLake.spark().read().parquet("s3a://" + bucket + "/t/").count())
                .hasStackTraceContaining("S3AFileSystem");
        assertThat(read("s3://" + bucket + "/t/").count()).isEqualTo(60);
    }
}
