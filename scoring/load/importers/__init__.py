"""Importers for evaluation-harness results (SPEC 7): harness files in, a raw runs table out.

Pure Python (never imports streamlit). Each importer maps one harness's result file to the
SPEC 1 columns as SPEC 7 specifies and says how in an :class:`ImportReport`; the one
validator (:func:`scoring.load.runs.validate_runs`, via :meth:`Imported.validate`) then decides
what is valid. Kinds:

- ``tau2``: tau2-bench Results JSON (one file, or the folder form ``results.json`` + ``simulations/``)
- ``tau-bench``: a tau-bench results list (``EnvRunResult`` objects)
- ``inspect``: an Inspect AI log (``.eval`` or ``.json``), read through ``inspect_ai.log``
- ``terminal-bench``: terminal-bench's ``results.json`` (several of one agent: repeated runs)
- ``runs``: a runs table (SPEC 1), or any table through a :class:`Mapping`

Typical use::

    imported = import_file("results.json")        # kind detected from the content
    print(imported.report.text())                 # the mapping, what was not mapped, warnings
    loaded = imported.validate()                  # LoadedRuns, or RunsValidationError
    report = score_runs(loaded.runs)
"""

from typing import TYPE_CHECKING

from scoring.contract.lazy import lazy_names

# Where each public name lives, imported when first asked for (PEP 562): the command line reads KINDS, and tells a
# runs file from a harness's (scoring.load.importers.kinds), without loading an importer, or pandas with it.
_HOMES = {
    "scoring.load.importers.kinds": ("KINDS",),
    "scoring.load.importers._base": ("FileReport", "Imported", "ImportReport", "MappedColumn", "apply_prices",
                                     "reward_success", "run_success"),
    "scoring.load.importers.api": ("classify", "combine", "detect", "expand_folder", "folder_forms", "import_batch",
                                   "import_file", "import_files"),
    "scoring.load.importers.inspect_log": ("score_outcome",),
    "scoring.load.importers.mapping": ("Mapping", "MappingError", "SuccessRule", "apply_mapping",
                                       "mapping_from_json", "mapping_to_json"),
    "scoring.load.importers.reading": ("HarnessReading", "Trial"),
    "scoring.load.importers.tau2": ("termination_status",),
}
_HOME, __getattr__, __dir__ = lazy_names("scoring.load.importers", _HOMES, globals())

# Every public name: the keys of _HOME (tests/test_layers.py checks the two agree).
__all__ = [
    "KINDS",
    "FileReport",
    "HarnessReading",
    "ImportReport",
    "Imported",
    "MappedColumn",
    "Mapping",
    "MappingError",
    "SuccessRule",
    "Trial",
    "apply_mapping",
    "apply_prices",
    "classify",
    "combine",
    "detect",
    "expand_folder",
    "folder_forms",
    "import_batch",
    "import_file",
    "import_files",
    "mapping_from_json",
    "mapping_to_json",
    "reward_success",
    "run_success",
    "score_outcome",
    "termination_status",
]

if TYPE_CHECKING:
    from scoring.load.importers._base import (
        FileReport,
        Imported,
        ImportReport,
        MappedColumn,
        apply_prices,
        reward_success,
        run_success,
    )
    from scoring.load.importers.api import (
        classify,
        combine,
        detect,
        expand_folder,
        folder_forms,
        import_batch,
        import_file,
        import_files,
    )
    from scoring.load.importers.inspect_log import score_outcome
    from scoring.load.importers.kinds import KINDS
    from scoring.load.importers.mapping import (
        Mapping,
        MappingError,
        SuccessRule,
        apply_mapping,
        mapping_from_json,
        mapping_to_json,
    )
    from scoring.load.importers.reading import HarnessReading, Trial
    from scoring.load.importers.tau2 import termination_status
