"""Public names a package imports when first asked for (PEP 562), so that importing the package costs nothing and a
process loads only what it uses (``report --engine sql`` never loads pandas).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_names(package: str, homes: Mapping[str, tuple[str, ...]],
               namespace: dict[str, Any]) -> tuple[dict[str, str], Callable[[str], Any], Callable[[], list[str]]]:
    """(name -> home module, the package's ``__getattr__``, its ``__dir__``) for the names ``homes`` lists per
    module; ``namespace`` is the package's ``globals()``, where a name is kept once imported."""
    home = {name: module for module, names in homes.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(home))

    return home, __getattr__, __dir__
