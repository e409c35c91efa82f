"""Oracle ops backed by Apache Spark with Delta Lake (PyPI pyspark + delta-spark): the engine that defines
Delta, as a second reader of the tables we write. One local SparkSession per worker, started on first use
(about 20-30 s; the Delta jars come from Maven Central through Spark's Ivy on the first run)."""

import threading

from ops_parquet_write import canonical_rows

_lock = threading.Lock()
_spark = None


def _session():
    global _spark
    with _lock:
        if _spark is None:
            from delta import configure_spark_with_delta_pip
            from pyspark.sql import SparkSession

            builder = (
                SparkSession.builder.master("local[1]")
                .appName("deltalite-oracle")
                .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.memory", "1g")
                .config("spark.sql.shuffle.partitions", "1")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.databricks.delta.snapshotPartitions", "1")
                .config("spark.default.parallelism", "1")
            )
            _spark = configure_spark_with_delta_pip(builder).getOrCreate()
            _spark.sparkContext.setLogLevel("ERROR")
        return _spark


def op_spark_read_table(args):
    """Spark reads a local Delta table (optionally at a version): canonical rows (sorted) and column names."""
    import json

    reader = _session().read.format("delta")
    if args.get("version") is not None:
        reader = reader.option("versionAsOf", int(args["version"]))
    df = reader.load(args["uri"])
    table = df.toArrow()
    rows = canonical_rows(table)
    return {"rows": sorted(rows, key=lambda r: json.dumps(r, sort_keys=True)), "names": table.schema.names, "count": table.num_rows}
