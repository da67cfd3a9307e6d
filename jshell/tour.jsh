// The README's JShell tour, run by CI: ./jshell.sh jshell/tour.jsh
record Sale(LocalDate dt, String country, long cents) {}
var sales = List.of(new Sale(LocalDate.of(2024, 1, 15), "RU", 100), new Sale(LocalDate.of(2024, 1, 15), "DE", 250));
var r = S3Parquet.write(sales).partitionBy("dt", "country").catalog(GlueCatalog.of(glue.client()).table("analytics", "sales")).s3(s3.client()).to("s3://lake/sales/");
r.partitionValues()
DuckReader.query(s3, "lake", "sales/", "SELECT country, cents FROM t ORDER BY cents")
if (!DuckReader.query(s3, "lake", "sales/", "SELECT sum(cents)::BIGINT FROM t").get(0).get(0).equals(350L)) throw new AssertionError("tour: wrong total");
System.out.println("tour ok");
/exit
