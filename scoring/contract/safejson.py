"""Reading small JSON documents from strangers: policies, receipts, scorecards, mappings.

``json.loads`` alone accepts what later code cannot use: nesting deep enough to exhaust the
stack, numbers that overflow a float (``1e400`` is infinity, ``10**400`` is an int no float can
hold), ``NaN`` literals, megabytes of data where a few kilobytes are expected. ``load_json``
refuses each of those with a :class:`JsonRefused` whose message names the place (``policy.xs[2]``).
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from typing import Any

MAX_SAFE_INT = 2**53  # beyond this an integer is not exactly a float


class JsonRefused(ValueError):
    """A JSON document was refused; ``where`` names the place (empty for the whole document)."""

    def __init__(self, what: str, where: str, reason: str):
        self.where, self.reason = where, reason
        super().__init__(f"{what}{' at ' + where if where else ''}: {reason}")


def decode_error_words(exc: json.JSONDecodeError) -> str:
    """Where and why a JSON text does not parse, in one phrase (the decoder's own message ends in "at" for an
    unterminated string: said once, not "starting at at line").

    >>> try:
    ...     json.loads('{"a": "b')
    ... except json.JSONDecodeError as exc:
    ...     print(decode_error_words(exc))
    Unterminated string starting at line 1, column 7
    >>> try:
    ...     json.loads('{"a": }')
    ... except json.JSONDecodeError as exc:
    ...     print(decode_error_words(exc))
    Expecting value at line 1, column 7
    """
    return f"{exc.msg.removesuffix(' at')} at line {exc.lineno}, column {exc.colno}"


def parse_int(text: str) -> int | float:
    """``json.loads``'s ``parse_int``: the integer, or past Python's digit limit for ``int()``
    (``sys.get_int_max_str_digits()``, 4,300 digits by default) the float it reads as, infinity, which every reader
    refuses as not finite, as it refuses ``1e309``: before, a 5,000-digit number stopped the whole file with the
    interpreter's own words ("use sys.set_int_max_str_digits() to increase the limit").

    >>> parse_int("12"), parse_int("1" + "0" * 5000), parse_int("-" + "9" * 5000)
    (12, inf, -inf)
    """
    limit = sys.get_int_max_str_digits()
    return int(text) if not limit or len(text) - text.startswith("-") <= limit else float(text)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not allowed (not a finite number)")


class RepeatedKeys(dict[str, Any]):
    """A JSON object that gives a key more than once (``json`` keeps the last value), with those keys."""

    repeated: tuple[str, ...] = ()


def object_noting_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook`` that keeps a reader's word: an object repeating a key comes back as a
    :class:`RepeatedKeys` naming them (the caller refuses it), any other as a plain dict (one length check)."""
    record = dict(pairs)
    if len(record) == len(pairs):
        return record
    marked = RepeatedKeys(record)
    marked.repeated = tuple(k for k, n in Counter(k for k, _ in pairs).items() if n > 1)
    return marked


def repeated_keys(value: Any) -> tuple[str, ...]:
    """The keys a parsed JSON object gave more than once (() for anything else)."""
    return value.repeated if isinstance(value, RepeatedKeys) else ()


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    record = object_noting_repeats(pairs)
    if repeated_keys(record):
        raise _DuplicateKey(repeated_keys(record)[0])
    return record


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        self.key = key
        super().__init__(f"the key {key!r} is given more than once (a reader could see either value)")


def load_json(data: str | bytes, *, what: str = "JSON", max_bytes: int = 1_000_000, max_depth: int = 32,
              unique_keys: bool = False) -> Any:
    """Parse ``data`` as JSON within bounds; raise :class:`JsonRefused` naming what and where.

    Examples
    --------
    >>> load_json('{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    >>> load_json('{"a": 1e400}', what="policy")
    Traceback (most recent call last):
    ...
    scoring.contract.safejson.JsonRefused: policy at a: not a finite number (too large for a float)
    """
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > max_bytes:
        raise JsonRefused(what, "", f"{size:,} bytes is more than the {max_bytes:,} bytes allowed")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise JsonRefused(what, "", f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        doc = json.loads(data, parse_constant=_no_constants, parse_int=parse_int,
                         object_pairs_hook=_refuse_duplicates if unique_keys else None)
    except RecursionError:
        raise JsonRefused(what, "", f"nested more than {max_depth} levels deep") from None
    except _DuplicateKey as exc:
        raise JsonRefused(what, "", str(exc)) from None
    except json.JSONDecodeError as exc:
        raise JsonRefused(what, "", f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except ValueError as exc:  # NaN/Infinity literals, integers beyond Python's digit limit
        raise JsonRefused(what, "", str(exc)) from None
    check_tree(doc, what=what, max_depth=max_depth)
    return doc


def check_tree(doc: Any, *, what: str = "JSON", max_depth: int = 32) -> None:
    """Refuse nesting deeper than ``max_depth`` and numbers no float holds exactly or at all.

    Depth first with one iterator per open container, so the work space is the depth, not the number of
    values (a stack of every pending value and its path took three times the parsed document).
    """
    def leaf(value: Any, where: str) -> None:
        if isinstance(value, float) and not math.isfinite(value):
            raise JsonRefused(what, where, "not a finite number (too large for a float)")
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INT:
            raise JsonRefused(what, where, f"the whole number is too large (more than {MAX_SAFE_INT:,})")

    def items(value: Any) -> Any:
        return iter(value.items()) if isinstance(value, dict) else enumerate(value)

    if not isinstance(doc, (dict, list)):
        leaf(doc, "")
        return
    if max_depth <= 0:
        raise JsonRefused(what, "", f"nested more than {max_depth} levels deep")
    stack: list[tuple[Any, str]] = [(items(doc), "")]
    while stack:
        iterator, where = stack[-1]
        step = next(iterator, None)
        if step is None:
            stack.pop()
            continue
        key, child = step
        if isinstance(child, (dict, list)):
            path = f"{where}[{key}]" if isinstance(key, int) else (f"{where}.{key}" if where else str(key))
            if len(stack) >= max_depth:
                raise JsonRefused(what, path, f"nested more than {max_depth} levels deep")
            stack.append((items(child), path))
        elif isinstance(child, (int, float)):
            try:
                leaf(child, "")
            except JsonRefused:
                path = f"{where}[{key}]" if isinstance(key, int) else (f"{where}.{key}" if where else str(key))
                leaf(child, path)
