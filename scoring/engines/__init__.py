"""The same measures computed by other engines (SQL dialects: DuckDB, PostgreSQL; Spark), filling the
measures' aggregate contracts.

May import: scoring.contract, scoring.load, scoring.measures.
"""
