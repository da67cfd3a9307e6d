// Opened by ./jshell.sh: wrangler on the class path, an embedded S3 and Glue started.
import io.wrangler.*;
import io.wrangler.glue.*;
import io.wrangler.testkit.*;
import java.math.BigDecimal;
import java.time.*;
import java.util.*;

var s3 = LocalS3.start();
s3.createBucket("lake");
var glue = LocalGlue.start();
glue.client().createDatabase(b -> b.databaseInput(d -> d.name("analytics")));
System.out.println("LocalS3 at " + s3.endpoint() + " (bucket 'lake'), LocalGlue at " + glue.endpoint() + " (database 'analytics')");
System.out.println("Try: S3Parquet.write(rows).partitionBy(\"dt\").s3(s3.client()).to(\"s3://lake/t/\")  and  DuckReader.query(s3, \"lake\", \"t/\", \"SELECT * FROM t\")");
