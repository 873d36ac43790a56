"""Benchmark: the Spark engine on 10,000,000 runs in local mode (both cores).

Generates the runs straight to Parquet with DuckDB (as bench_sql.py does), then in one Spark session
(local mode, or ``--master``) times the full report (``score_spark``) against a bare Spark
``groupBy("agent_id").avg("latency_ms", "cost_usd")`` on the same file, taken in turn (report, floor,
report, ...), each the median of a few repeats after a warm-up round left out of both medians (``--warmup``: a
session's first report compiles every query's code), and prints their ratio; with ``--ab-persist``, each round
also times a report that keeps the normalized runs (``SCORING_SPARK_PERSIST=1``); with ``--queries``, one more
report with the time of each Spark query (each statement and each collect, in order); then the DuckDB
engine on the same file for reference, and whether its report is the same text. Nothing is asserted.

    python bench/bench_spark.py [--runs 10000000] [--agents 500] [--warmup 1] [--repeat 3] [--driver-memory 4g]
                                [--master local[2]] [--queries] [--ab-persist] [--keep runs.parquet] [--no-duckdb]
                                [--conf KEY=VALUE ...]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_sql import GENERATE  # noqa: E402 (the same runs as the DuckDB benchmark)
from scoring.engines.spark_engine import local_session, score_spark  # noqa: E402
from scoring.engines.sql_engine import score_file_sql  # noqa: E402


def query_times(spark: Any, fn: Callable[[], Any]) -> list[tuple[float, str]]:
    """Run ``fn`` with every statement (``spark.sql``, eager for CACHE TABLE), every collect and toArrow timed."""
    DataFrame = type(spark.range(1))  # the session's own class (classic or Connect), which defines collect
    times: list[tuple[float, str]] = []
    last = {"query": ""}
    sql, collect, to_arrow = spark.sql, DataFrame.collect, getattr(DataFrame, "toArrow", None)

    def timed_sql(query: str, *args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        frame = sql(query, *args, **kwargs)
        times.append((time.perf_counter() - t0, "statement " + " ".join(query.split())))
        last["query"] = query
        return frame

    def timed_collect(frame: Any) -> Any:
        t0 = time.perf_counter()
        rows = collect(frame)
        times.append((time.perf_counter() - t0, "collect " + " ".join(last["query"].split())))
        return rows

    def timed_arrow(frame: Any) -> Any:
        assert to_arrow is not None
        t0 = time.perf_counter()
        table = to_arrow(frame)
        times.append((time.perf_counter() - t0, "toArrow " + " ".join(last["query"].split())))
        return table

    spark.sql, DataFrame.collect = timed_sql, timed_collect
    if to_arrow is not None:
        DataFrame.toArrow = timed_arrow
    try:
        fn()
    finally:
        del spark.sql
        DataFrame.collect = collect
        if to_arrow is not None:
            DataFrame.toArrow = to_arrow
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000_000)
    parser.add_argument("--agents", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1,
                        help="rounds (report, then floor) run first and left out of the medians: the JVM compiles "
                             "each query's code on its first runs, the report's and the floor's alike")
    parser.add_argument("--driver-memory", default="4g", help="the local-mode JVM's heap (spark.driver.memory)")
    parser.add_argument("--keep", default=None, metavar="RUNS.parquet",
                        help="write the Parquet file here and keep it (or read it if there); its name ends in .parquet "
                             "(the DuckDB reference run reads a file by its suffix)")
    parser.add_argument("--master", default="local[2]", help="local[N], or a cluster's spark://host:port")
    parser.add_argument("--queries", action="store_true", help="one more report, with each query's time")
    parser.add_argument("--ab-persist", action="store_true",
                        help="each round also a report with the normalized runs kept (SCORING_SPARK_PERSIST=1)")
    parser.add_argument("--no-duckdb", action="store_true", help="skip the DuckDB reference run")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark setting for the session (repeatable), e.g. spark.sql.shuffle.partitions=8")
    args = parser.parse_args()
    if args.keep and Path(args.keep).suffix.lower() != ".parquet":  # refused now, not after minutes of Spark
        parser.error(f"--keep: a file name ending in .parquet, not {args.keep!r}")
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(line_buffering=True)  # each figure as soon as it is measured, even into a file

    import duckdb

    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP", "/tmp")) as tmp:
        path = Path(args.keep) if args.keep else Path(tmp) / "runs.parquet"
        if not path.exists():
            t0 = time.perf_counter()
            con = duckdb.connect()
            con.execute(f"SET temp_directory = '{tmp}'")
            con.execute(GENERATE.format(agents=args.agents, runs=args.runs, path=str(path)))
            con.close()
            print(f"generated {args.runs:,} runs in {time.perf_counter() - t0:.1f} s "
                  f"({path.stat().st_size / 1e6:,.0f} MB of Parquet)")

        t0 = time.perf_counter()
        conf = dict(item.split("=", 1) for item in args.conf)
        spark = local_session({"spark.driver.memory": args.driver_memory, **conf}, master=args.master)
        print(f"Spark {spark.version} {args.master}, driver memory {args.driver_memory}, shuffle partitions "
              f"{spark.conf.get('spark.sql.shuffle.partitions')}{''.join(f', {k}={v}' for k, v in conf.items())}: "
              f"session in {time.perf_counter() - t0:.1f} s")

        def bare() -> Any:
            frame = spark.read.parquet(str(path))
            return frame.groupBy("agent_id").avg("latency_ms", "cost_usd").collect()

        # A/B in turn (report, floor, report, floor, ...): a change in the machine's load hits both alike.
        full_times: list[float] = []
        base_times: list[float] = []
        kept_times: list[float] = []
        report = None
        for i in range(args.warmup):
            t0 = time.perf_counter()
            score_spark(path, spark=spark)
            warm_report = time.perf_counter() - t0
            t0 = time.perf_counter()
            bare()
            print(f"  warm-up {i + 1} (not in the medians): report {warm_report:.1f} s, "
                  f"floor {time.perf_counter() - t0:.1f} s")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            report = score_spark(path, spark=spark)
            full_times.append(time.perf_counter() - t0)
            kept = ""
            if args.ab_persist:
                os.environ["SCORING_SPARK_PERSIST"] = "1"
                try:
                    t0 = time.perf_counter()
                    other = score_spark(path, spark=spark)
                    kept_times.append(time.perf_counter() - t0)
                finally:
                    del os.environ["SCORING_SPARK_PERSIST"]
                same = other.to_json_text() == report.to_json_text()
                kept = f", report with persist {kept_times[-1]:.1f} s (same text: {'yes' if same else 'NO'})"
            t0 = time.perf_counter()
            bare()
            base_times.append(time.perf_counter() - t0)
            print(f"  round {len(full_times)}: report {full_times[-1]:.1f} s{kept}, floor {base_times[-1]:.1f} s "
                  f"(load average {os.getloadavg()[0]:.1f})")
        assert report is not None
        full, base = statistics.median(full_times), statistics.median(base_times)
        show = ", ".join
        print(f"full Spark report: {full:.1f} s (runs: {show(f'{t:.1f}' for t in full_times)}); "
              f"{len(report.agents)} agents, leader {report.agents[0].agent_id} {report.agents[0].headline.score}")
        print(f"bare groupBy(agent).avg(latency, cost): {base:.1f} s (runs: {show(f'{t:.1f}' for t in base_times)})")
        print(f"ratio full / bare: {full / base:.1f}x")
        if kept_times:
            kept_median = statistics.median(kept_times)
            print(f"report with persist: {kept_median:.1f} s (runs: {show(f'{t:.1f}' for t in kept_times)}); "
                  f"ratio to the floor {kept_median / base:.1f}x")
        if args.queries:
            times = query_times(spark, lambda: score_spark(path, spark=spark))
            print(f"each query of one more report ({sum(t for t, _ in times):.1f} s in all; > 0.05 s shown):")
            for seconds, query in times:
                if seconds > 0.05:
                    print(f"  {seconds:6.2f} s  {query[:150]}")
        spark.stop()
        if args.no_duckdb:
            return

        t0 = time.perf_counter()
        duck = score_file_sql(path, threads=2, temp_directory=tmp)
        print(f"DuckDB engine (reference, one run, 2 threads): {time.perf_counter() - t0:.1f} s; "
              f"same report text as Spark: {'yes' if duck.to_json_text() == report.to_json_text() else 'NO'}")


if __name__ == "__main__":
    main()
