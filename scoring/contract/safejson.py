"""Reading small JSON documents from strangers: policies, receipts, scorecards, mappings.

``json.loads`` alone accepts what later code cannot use: nesting deep enough to exhaust the
stack, numbers that overflow a float (``1e400`` is infinity, ``10**400`` is an int no float can
hold), ``NaN`` literals, megabytes of data where a few kilobytes are expected. ``load_json``
refuses each of those with a :class:`JsonRefused` whose message names the place (``policy.xs[2]``).
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections import Counter
from typing import Any

import numpy as np

MAX_SAFE_INT = 2**53  # beyond this an integer is not exactly a float
# JSON's "\ud800" escape decodes to half a UTF-16 pair, no character: no UTF-8 text, pandas string or terminal
# takes it. A pair of escapes ("\ud83d\ude00") decodes to one character and is never matched here.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # in the JSON text: the only way to a lone surrogate
LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # in a parsed text


def escaped_surrogates(text: str) -> str:
    r"""``text`` with each lone surrogate written as its JSON escape (six characters), as the file spells it.

    >>> escaped_surrogates("a\ud800b")
    'a\\ud800b'
    """
    return LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _quoted(text: str, width: int = 60) -> str:
    r"""A text as JSON spells it (quoted, every control and surrogate escaped), cut to ``width`` characters.

    >>> print(_quoted("lone \ud800"), _quoted("x" * 100, 8))
    "lone \ud800" "xxxxxx…
    """
    spelled = json.dumps(text)
    return spelled if len(spelled) <= width else spelled[:width - 1] + "…"


def escape_lone_surrogates(doc: Any) -> int:
    r"""Write every lone surrogate of a parsed document's texts and keys as its escape, in place (the document is
    a dict or a list); how many texts changed. A harness file's text is read as the file spells it, with a warning,
    rather than stopping the import: the same surrogate always reads the same, two never read as one.

    >>> doc = {"a\udc00": ["x\ud800", {"b": "ok"}]}
    >>> escape_lone_surrogates(doc), doc
    (2, {'a\\udc00': ['x\\ud800', {'b': 'ok'}]})
    """
    changed = 0
    stack = [doc] if isinstance(doc, (dict, list)) else []
    while stack:
        node = stack.pop()
        pairs = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        renamed = False
        for key, value in pairs:
            if isinstance(value, str) and LONE_SURROGATE.search(value):
                node[key] = escaped_surrogates(value)
                changed += 1
            elif isinstance(value, (dict, list)):
                stack.append(value)
            renamed = renamed or (isinstance(key, str) and bool(LONE_SURROGATE.search(key)))
        if renamed and isinstance(node, dict):  # rebuilt in its order
            changed += sum(bool(LONE_SURROGATE.search(k)) for k in node)
            items = [(escaped_surrogates(k), v) for k, v in node.items()]
            node.clear()
            node.update(items)
    return changed


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


def refuse_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook`` that raises :class:`RepeatedKey` for an object repeating a key."""
    record = object_noting_repeats(pairs)
    if repeated_keys(record):
        raise RepeatedKey(repeated_keys(record)[0])
    return record


class RepeatedKey(ValueError):
    """A JSON object gave ``key`` more than once (``json`` would keep the last value and drop the others)."""

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
                         object_pairs_hook=refuse_repeated_keys if unique_keys else None)
    except RecursionError:
        raise JsonRefused(what, "", f"nested more than {max_depth} levels deep") from None
    except RepeatedKey as exc:
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
        if isinstance(doc, str) and LONE_SURROGATE.search(doc):
            raise JsonRefused(what, "", "the text holds a lone UTF-16 surrogate, which is no character")
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
        if isinstance(key, str) and LONE_SURROGATE.search(key):
            raise JsonRefused(what, where, f"the key {_quoted(key)} holds a lone UTF-16 surrogate, which is no "
                                           "character")
        if isinstance(child, str) and LONE_SURROGATE.search(child):
            path = f"{where}[{key}]" if isinstance(key, int) else (f"{where}.{key}" if where else str(key))
            raise JsonRefused(what, path, f"the text {_quoted(child)} holds a lone UTF-16 surrogate, which is no "
                                          "character")
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


# A JSON string; an unterminated one runs to the end of the input. That alternative matters: without
# it a file of escaped quotes and no closing quote makes every quote a failed start (quadratic time).
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.S)
_OPEN = np.zeros(256, dtype=np.int8)
_OPEN[[ord("["), ord("{")]] = 1
_OPEN[[ord("]"), ord("}")]] = -1


def json_depth(data: bytes, chunk: int = 1 << 24) -> int:
    """How deeply a JSON text nests, found without parsing it (strings are skipped).

    Bounded: one pass in chunks, so a hostile file cannot exhaust the parser's stack first.

    Examples
    --------
    >>> json_depth(b'{"a": [1, {"b": "[[[["}]}')
    3
    """
    skeleton = _JSON_STRING.sub(b"", data)
    depth, deepest = 0, 0
    for start in range(0, len(skeleton), chunk):
        steps = _OPEN[np.frombuffer(skeleton[start:start + chunk], dtype=np.uint8)].astype(np.int64)
        if steps.size:
            running = depth + np.cumsum(steps)
            deepest = max(deepest, int(running.max()))
            depth = int(running[-1])
    return deepest


def nesting(value: object) -> int:
    """How deeply a parsed JSON value nests, counted as :func:`json_depth` counts its text: 0 for a scalar, 1 for a
    list or object of scalars, one more for each level inside. Iterative: no recursion however deep.

    >>> nesting({"a": [1, {"b": "[[[["}]}), nesting([]), nesting("x")
    (3, 1, 0)
    """
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        inner = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if inner is None:
            continue
        deepest = max(deepest, depth)
        stack.extend((v, depth + 1) for v in inner if isinstance(v, (dict, list)))
    return deepest


def too_deep(depth: int, limit: int) -> str:
    """The refusal of a JSON text nesting ``depth`` levels, past ``limit`` (max_json_depth), in one set of words
    wherever it is found (a harness's file, a runs file)."""
    return f"the JSON nests {depth} levels deep, more than the limit of {limit} (max_json_depth)"
