// The README's JShell tour, run by CI: ./jshell.sh jshell/tour.jsh
// (A script does not echo values as the interactive shell does, so each step prints what it wrote or read.)
record Sale(LocalDate dt, String country, long cents) {}
var sales = List.of(new Sale(LocalDate.of(2024, 1, 15), "RU", 100), new Sale(LocalDate.of(2024, 1, 15), "DE", 250));
var r = S3Parquet.write(sales).partitionBy("dt", "country").catalog(GlueCatalog.of(glue.client()).table("analytics", "sales")).s3(s3.client()).to("s3://lake/sales/");
System.out.println("wrote " + r.rows() + " rows into " + r.partitionValues());
var rows = DuckReader.query(s3, "lake", "sales/", "SELECT dt, country, cents FROM t ORDER BY cents");
System.out.println("DuckDB reads " + rows);
if (!DuckReader.query(s3, "lake", "sales/", "SELECT sum(cents)::BIGINT FROM t").get(0).get(0).equals(350L)) throw new AssertionError("tour: wrong total");
// Reading back: the rows as the records they were written from, partition columns (dt, country) restored.
var back = S3Parquet.read("s3://lake/sales/").s3(s3.client()).toList(Sale.class);
System.out.println("wrangler reads " + back);
if (!new HashSet<>(back).equals(new HashSet<>(sales))) throw new AssertionError("tour: toList read " + back);
// By the Glue table's name (its location and partitions from Glue); pruned partitions are never listed or opened.
var de = S3Parquet.read(GlueCatalog.of(glue.client()).table("analytics", "sales")).s3(s3.client()).filter(PartitionFilter.in("country", "DE")).toList(Sale.class);
System.out.println("wrangler reads analytics.sales where country = DE: " + de);
if (!de.equals(List.of(sales.get(1)))) throw new AssertionError("tour: read by name " + de);
var n = S3Parquet.read("s3://lake/sales/").s3(s3.client()).count();
System.out.println("wrangler counts " + n + " rows");
if (n != 2) throw new AssertionError("tour: count " + n);
// Or as Arrow batches, for a table larger than memory.
var reader = S3Parquet.read("s3://lake/sales/").s3(s3.client()).columns("cents", "country").open();
reader.loadNextBatch();
System.out.print("wrangler reads a batch of " + reader.getVectorSchemaRoot().getRowCount() + " rows (two files):\n" + reader.getVectorSchemaRoot().contentToTSVString());
if (reader.getVectorSchemaRoot().getRowCount() != 2 || reader.loadNextBatch()) throw new AssertionError("tour: batches");
reader.close();
// A merge by key (upsert): order 1's row is replaced, order 3 added; the files without a matched key stay as they are.
record Order(long order_id, String status, LocalDate dt) {}
S3Parquet.write(List.of(new Order(1, "open", LocalDate.of(2024, 1, 15)), new Order(2, "open", LocalDate.of(2024, 1, 15)))).partitionBy("dt").s3(s3.client()).to("s3://lake/orders/");
var m = S3Parquet.merge(List.of(new Order(1, "shipped", LocalDate.of(2024, 1, 15)), new Order(3, "open", LocalDate.of(2024, 1, 16)))).on("order_id").s3(s3.client()).to("s3://lake/orders/");
System.out.println("merged: " + m.rowsInserted() + " inserted, " + m.rowsUpdated() + " updated, " + m.filesRewritten().size() + " file rewritten");
var orders = DuckReader.query(s3, "lake", "orders/", "SELECT order_id, status FROM t ORDER BY order_id");
System.out.println("DuckDB reads " + orders);
if (!orders.equals(List.of(List.of(1L, "shipped"), List.of(2L, "open"), List.of(3L, "open")))) throw new AssertionError("tour: merge " + orders);
System.out.println("tour ok");
/exit
