"""Optional features and the extra that installs each: a core-only install says what to install, never an
ImportError traceback.

The core (``pip install agentscore``) needs pandas, pyarrow and numpy only; the app, the DuckDB, PostgreSQL
and Spark engines, Inspect AI logs and the review pack need the packages of their extra (pyproject.toml).
"""

from __future__ import annotations

DISTRIBUTION = "scoring-methodology-explorer"  # pyproject.toml's name (the command is `agentscore`)

# The top-level module a feature imports -> the extra that installs it.
EXTRA_OF_MODULE: dict[str, str] = {
    "streamlit": "app", "duckdb": "sql", "psycopg": "postgres", "pyspark": "spark", "py4j": "spark",
    "grpc": "spark", "inspect_ai": "inspect", "plotly": "pack", "playwright": "pack",
}


def install_hint(extra: str) -> str:
    """The command that installs an extra, with the clone's equivalent.

    >>> install_hint("sql")
    "pip install 'scoring-methodology-explorer[sql]' (in a clone: pip install -r requirements.txt)"
    """
    requirements = "requirements-spark.txt" if extra == "spark" else "requirements.txt"
    return f"pip install '{DISTRIBUTION}[{extra}]' (in a clone: pip install -r {requirements})"


def missing_module_message(module: str | None, feature: str = "this command", extra: str | None = None) -> str | None:
    """What to install when ``module`` is missing for ``feature``; None for a module no extra provides.

    >>> print(missing_module_message("duckdb", "--engine sql"))  # doctest: +NORMALIZE_WHITESPACE
    --engine sql needs duckdb, which is not installed:
    pip install 'scoring-methodology-explorer[sql]' (in a clone: pip install -r requirements.txt)
    >>> missing_module_message("numpy") is None
    True
    """
    top = (module or "").split(".")[0]
    extra = extra or EXTRA_OF_MODULE.get(top)
    if extra is None or top not in EXTRA_OF_MODULE:
        return None
    return f"{feature} needs {top}, which is not installed: {install_hint(extra)}"
