"""Pieces of download file names made from strangers' text (agent ids, policy versions, scorecard names)."""

from __future__ import annotations

import re
import unicodedata

SLUG_MAX_CHARS = 40


def file_slug(text: str, max_chars: int = SLUG_MAX_CHARS) -> str:
    """``text`` as a piece of a file name: ASCII letters, digits, ``.``, ``_`` and single ``-``, lower case.

    Letters with diacritics keep their base letter; anything else becomes ``-``. The result never
    starts or ends with a dot, a dash or an underscore (no hidden file, no option), is at most
    ``max_chars`` long, and is empty when nothing of ``text`` survives (``file_slug("_")`` is '').

    Examples
    --------
    >>> file_slug("GPT-4o Mini @ Retail/v2"), file_slug("Équipe…"), file_slug("../../etc"), file_slug("漢字")
    ('gpt-4o-mini-retail-v2', 'equipe', 'etc', '')
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9._]+", "-", ascii_text)
    slug = re.sub(r"\.{2,}", ".", slug)
    return slug[:max_chars].strip("-._")
