"""How well titles are read, on the development set and on the held-out set no rule is tuned to.

``fixtures/normalizer/labeled_titles.tsv`` is the development set: rules were written while
reading it. ``fixtures/normalizer/heldout_titles.tsv`` and ``heldout_fifteenth.tsv`` were
labelled after the rules of their session were written and are only measured, never tuned
against (their README says how each was drawn); their figures are what a buyer can expect on
listings nobody here has read.
"""

from __future__ import annotations

from typing import Any

from bench import FIXTURES
from bench.accuracy import load_labeled, score_accuracy
from ranking.titles import normalize_title

SETS = {
    "development": FIXTURES / "normalizer" / "labeled_titles.tsv",
    "heldout": FIXTURES / "normalizer" / "heldout_titles.tsv",
    "heldout_fifteenth": FIXTURES / "normalizer" / "heldout_fifteenth.tsv",
}
FIELDS = ("sku_precision", "sku_recall", "kind", "quantity", "includes", "category")


def run() -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, path in SETS.items():
        report = score_accuracy(load_labeled(path), normalize_title)
        result[name] = {
            "titles": report.cases,
            **{field: str(getattr(report, field)) for field in FIELDS},
            "mistakes": len(report.mistakes),
        }
    return result
