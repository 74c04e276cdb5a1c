"""MkDocs hooks of the dpverify site (``hooks:`` in mkdocs.yml; not a page of the site).

* Heading anchors: each run of characters other than letters and digits becomes one
  hyphen (``jin/Table 1`` -> ``jin-table-1``, ``Fact 4.2`` -> ``fact-4-2``).  Python-Markdown's
  default drops punctuation instead (``jintable-1``, ``fact-42``), which breaks the links
  that ``python -m proofs_checks`` writes into docs/claims.md and makes ``4.2`` and ``42``
  collide.  ``validation: anchors: warn`` in mkdocs.yml makes ``mkdocs build --strict``
  fail on any link to a missing anchor.
"""

from __future__ import annotations

import unicodedata
from typing import Any

__all__ = ["on_config", "slugify"]


def slugify(value: str, separator: str = "-") -> str:
    """Heading text -> anchor: lower case, ASCII letters and digits kept, every other run
    of characters one ``separator``, none at either end."""
    text = unicodedata.normalize("NFKD", value)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    out: list[str] = []
    for c in text:
        if c.isascii() and c.isalnum():
            out.append(c)
        elif out and out[-1] != separator:
            out.append(separator)
    return "".join(out).strip(separator)


def on_config(config: Any, **kwargs: Any) -> Any:
    """Use :func:`slugify` for the ``toc`` extension's heading ids."""
    config["mdx_configs"].setdefault("toc", {})["slugify"] = slugify
    return config
