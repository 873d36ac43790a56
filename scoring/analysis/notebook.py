"""The notebook API: ``scoring.score(data)`` scores runs wherever they are and returns the report.

``data`` is a path (a runs file, or harness results imported as the command line imports them: tau2-bench,
tau-bench, Inspect AI), a list of paths (scored together), a pandas DataFrame or a pyarrow Table with the
SPEC 1 columns. Every input goes through the one validator, so a bad cell is refused with its row, column,
value and reason (:class:`~scoring.load.runs.RunsValidationError`), never silently dropped.

>>> import scoring
>>> report = scoring.score(scoring.SAMPLE_RUNS)
>>> report.leaderboard()[["rank", "agent", "score"]].head(2)
   rank       agent  score
0     1  steady-pro  86.96
1     2  swift-lite  79.65
>>> report.agent("steady-pro").explain().points.components[0].name
'success'
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TypeAlias

import pandas as pd
import pyarrow as pa

from scoring.analysis.explain import explain
from scoring.contract.limits import DEFAULT_LIMITS, Limits
from scoring.contract.policy import CANONICAL_POLICY, Policy, load_policy
from scoring.load.importers import import_file, import_files
from scoring.load.runs import LoadedRuns, load_runs, validate_runs
from scoring.measures.report import Report, score_runs

PathLike: TypeAlias = str | os.PathLike[str]
Data: TypeAlias = PathLike | Sequence[PathLike] | pd.DataFrame | pa.Table


def load(data: Data, *, exclude_invalid: bool = False, limits: Limits = DEFAULT_LIMITS) -> LoadedRuns:
    """The validated runs of ``data`` (see :func:`score`), with the loader's warnings and counts."""
    if isinstance(data, pa.Table):
        return validate_runs(data.to_pandas(), source="Arrow table", format="arrow", exclude_invalid=exclude_invalid)
    if isinstance(data, pd.DataFrame):
        return validate_runs(data, source="DataFrame", format="frame", exclude_invalid=exclude_invalid)
    if isinstance(data, str | os.PathLike):
        from scoring.load.importers.api import looks_like_runs_file  # a runs table is read once, as a file

        path = Path(os.fspath(data))
        if looks_like_runs_file(str(path), limits):
            return load_runs(path, exclude_invalid=exclude_invalid, limits=limits)
        return import_file(path, limits=limits).validate(exclude_invalid=exclude_invalid)
    paths = list(data)
    if not paths or not all(isinstance(p, str | os.PathLike) for p in paths):
        raise TypeError("score() takes a path, a list of paths, a pandas DataFrame or a pyarrow Table")
    if len(paths) == 1:
        return load(paths[0], exclude_invalid=exclude_invalid, limits=limits)
    return import_files([Path(os.fspath(p)) for p in paths], limits=limits).validate(exclude_invalid=exclude_invalid)


def _policy(policy: Policy | PathLike | None) -> Policy:
    if policy is None:
        return CANONICAL_POLICY
    if isinstance(policy, Policy):
        return policy
    return load_policy(Path(policy).read_bytes(), what=str(policy))


def score(data: Data, policy: Policy | PathLike | None = None, *, weights: Mapping[str, float] | None = None,
          exclude_invalid: bool = False, limits: Limits = DEFAULT_LIMITS) -> Report:
    """Score ``data`` under ``policy`` (the canonical policy by default; a
    :class:`~scoring.contract.policy.Policy` or the path of a sandbox policy JSON) and return the
    :class:`~scoring.measures.report.Report`.

    The report keeps its runs, so ``report.agent(name).explain()`` works; ``report.leaderboard()`` and
    ``report.to_frame()`` are DataFrames, and the report shows itself as a table in Jupyter.
    """
    loaded = load(data, exclude_invalid=exclude_invalid, limits=limits)
    scored = score_runs(loaded.runs, _policy(policy), weights=weights)
    scored = replace(scored, runs=loaded.runs, warnings=tuple(loaded.warnings))
    return replace(scored, agents=tuple(replace(agent, source=scored, explainer=explain) for agent in scored.agents))
