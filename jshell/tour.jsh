// The README's JShell tour, run by CI: ./jshell.sh jshell/tour.jsh
// (A script does not echo values as the interactive shell does, so each step prints what it wrote or read.)
record Sale(LocalDate dt, String country, long cents) {}
var sales = List.of(new Sale(LocalDate.of(2024, 1, 15), "RU", 100), new Sale(LocalDate.of(2024, 1, 15), "DE", 250));
var r = S3Parquet.write(sales).partitionBy("dt", "country").catalog(GlueCatalog.of(glue.client()).table("analytics", "sales")).s3(s3.client()).to("s3://lake/sales/");
System.out.println("wrote " + r.rows() + " rows into " + r.partitionValues());
var rows = DuckReader.query(s3, "lake", "sales/", "SELECT dt, country, cents FROM t ORDER BY cents");
System.out.println("DuckDB reads " + rows);
if (!DuckReader.query(s3, "lake", "sales/", "SELECT sum(cents)::BIGINT FROM t").get(0).get(0).equals(350L)) throw new AssertionError("tour: wrong total");
// Reading back: an ArrowReader of batches, partition columns restored, pruned partitions never listed or opened.
var reader = S3Parquet.read("s3://lake/sales/").s3(s3.client()).filter(PartitionFilter.in("country", "DE")).columns("cents", "country").open();
reader.loadNextBatch();
System.out.print("wrangler reads country=DE:\n" + reader.getVectorSchemaRoot().contentToTSVString());
if (reader.getVectorSchemaRoot().getRowCount() != 1 || !reader.getVectorSchemaRoot().getVector("country").getObject(0).toString().equals("DE")) throw new AssertionError("tour: read");
reader.close();
System.out.println("tour ok");
/exit
