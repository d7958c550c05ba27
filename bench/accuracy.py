"""Score a title normalizer against hand-labeled titles (fixtures/normalizer/labeled_titles.tsv).

``load_labeled`` reads the set, ``score_accuracy`` compares any ``title -> Normalized``
function with it, and ``render_accuracy_report`` prints the per-SKU table and the mistakes.
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.errors import NormalizeError
from core.models import Category, Included, Kind, Normalized

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from pathlib import Path

COLUMNS = ("title", "sku", "category", "kind", "quantity", "includes", "source")
_NO_SKU_KINDS = frozenset({Kind.ACCESSORY, Kind.OTHER})


@dataclass(frozen=True, slots=True)
class LabeledTitle:
    """One row of the labeled set: what a person decided the title really is."""

    title: str
    sku: str | None
    category: Category | None
    kind: Kind
    quantity: int = 1
    includes: tuple[Included, ...] = ()
    source: str = "handmade"


@dataclass(frozen=True, slots=True)
class Ratio:
    """``hits`` out of ``total``; an empty total scores 1.0 (nothing to get wrong)."""

    hits: int
    total: int

    @property
    def value(self) -> float:
        return self.hits / self.total if self.total else 1.0

    def __str__(self) -> str:
        return f"{self.value:.3f} ({self.hits}/{self.total})"


@dataclass(frozen=True, slots=True)
class SkuScore:
    """How one SKU fared: rows labeled with it, rows predicted as it, and the overlap."""

    sku: str
    support: int
    predicted: int
    correct: int

    @property
    def precision(self) -> Ratio:
        return Ratio(self.correct, self.predicted)

    @property
    def recall(self) -> Ratio:
        return Ratio(self.correct, self.support)


@dataclass(frozen=True, slots=True)
class Mistake:
    """A labeled title the normalizer got wrong, and which fields were wrong."""

    case: LabeledTitle
    predicted: Normalized
    fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AccuracyReport:
    """Scores over a labeled set.

    - ``sku_precision``: of all rows where a SKU was predicted (any kind), the share whose
      labeled SKU is that SKU; predicting a SKU for an accessory or an ambiguous title is
      a miss.
    - ``sku_recall``: of all rows labeled with a SKU (item and for_parts), the share
      predicted with that SKU.
    - ``kind``: all rows, predicted kind equals the label.
    - ``quantity``: rows labeled with a SKU, predicted quantity equals the label.
    - ``includes``: rows labeled server or board, same GPUs and counts (order ignored).
    - ``category``: rows labeled with a category, predicted category equals it.
    """

    cases: int
    sku_precision: Ratio
    sku_recall: Ratio
    kind: Ratio
    quantity: Ratio
    includes: Ratio
    category: Ratio
    per_sku: tuple[SkuScore, ...]
    mistakes: tuple[Mistake, ...]


def load_labeled(path: Path) -> list[LabeledTitle]:
    """Read the labeled TSV; a malformed row raises NormalizeError naming the file and line."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows or tuple(rows[0]) != COLUMNS:
        raise NormalizeError(f"{path}: header must be {' '.join(COLUMNS)!r}")
    cases = [_parse_row(row, f"{path}:{number}") for number, row in enumerate(rows[1:], 2)]
    if not cases:
        raise NormalizeError(f"{path}: no labeled titles")
    return cases


def _parse_row(row: list[str], where: str) -> LabeledTitle:
    if len(row) != len(COLUMNS):
        raise NormalizeError(f"{where}: expected {len(COLUMNS)} columns, found {len(row)}")
    title, sku, category, kind, quantity, includes, source = row
    try:
        case = LabeledTitle(
            title=title,
            sku=sku or None,
            category=Category(category) if category else None,
            kind=Kind(kind),
            quantity=int(quantity),
            includes=_parse_includes(includes),
            source=source,
        )
    except ValueError as exc:
        raise NormalizeError(f"{where}: {exc}") from exc
    _check_case(case, where)
    return case


def _parse_includes(text: str) -> tuple[Included, ...]:
    parts = [part.strip() for part in text.split(",") if part.strip()]
    included = []
    for part in parts:
        sku, sep, count = part.partition(":")
        if not sep or not sku or not count.isdigit() or int(count) < 1:
            raise ValueError(f"includes entry {part!r} is not sku:count")
        included.append(Included(sku=sku, quantity=int(count)))
    return tuple(included)


def _check_case(case: LabeledTitle, where: str) -> None:
    if not case.title.strip() or not case.source:
        raise NormalizeError(f"{where}: title and source must not be empty")
    if case.quantity < 1:
        raise NormalizeError(f"{where}: quantity must be at least 1, not {case.quantity}")
    if case.kind in _NO_SKU_KINDS and (case.sku or case.category):
        raise NormalizeError(f"{where}: a {case.kind.value} row has no sku and no category")
    if case.sku is None and case.quantity != 1:
        raise NormalizeError(f"{where}: quantity counts units of a sku; this row has none")


def score_accuracy(
    cases: Sequence[LabeledTitle], predict: Callable[[str], Normalized]
) -> AccuracyReport:
    """Run ``predict`` on every labeled title and score it (see AccuracyReport for the rules)."""
    if not cases:
        raise NormalizeError("no labeled titles to score")
    pairs = [(case, predict(case.title)) for case in cases]
    with_sku = [(c, p) for c, p in pairs if c.sku is not None]
    hosts = [(c, p) for c, p in pairs if c.category in (Category.SERVER, Category.BOARD)]
    return AccuracyReport(
        cases=len(pairs),
        sku_precision=_ratio((c.sku == p.sku for c, p in pairs if p.sku is not None)),
        sku_recall=_ratio(c.sku == p.sku for c, p in with_sku),
        kind=_ratio(c.kind == p.kind for c, p in pairs),
        quantity=_ratio(c.quantity == p.quantity for c, p in with_sku),
        includes=_ratio(_same_includes(c.includes, p.includes) for c, p in hosts),
        category=_ratio(c.category == p.category for c, p in pairs if c.category),
        per_sku=_per_sku(pairs),
        mistakes=tuple(m for c, p in pairs if (m := _mistake(c, p)) is not None),
    )


def _ratio(outcomes: Iterable[bool]) -> Ratio:
    results = list(outcomes)
    return Ratio(hits=sum(results), total=len(results))


def _same_includes(expected: Sequence[Included], got: Sequence[Included]) -> bool:
    def totals(items: Sequence[Included]) -> Counter[str]:
        counts: Counter[str] = Counter()
        for item in items:
            counts[item.sku] += item.quantity
        return counts

    return totals(expected) == totals(got)


def _per_sku(pairs: Sequence[tuple[LabeledTitle, Normalized]]) -> tuple[SkuScore, ...]:
    support = Counter(c.sku for c, _ in pairs if c.sku is not None)
    predicted = Counter(p.sku for _, p in pairs if p.sku is not None)
    correct = Counter(c.sku for c, p in pairs if c.sku is not None and c.sku == p.sku)
    return tuple(
        SkuScore(sku=sku, support=support[sku], predicted=predicted[sku], correct=correct[sku])
        for sku in sorted(set(support) | set(predicted))
    )


def _mistake(case: LabeledTitle, got: Normalized) -> Mistake | None:
    checks = {
        "sku": case.sku == got.sku,
        "kind": case.kind == got.kind,
        "quantity": case.sku is None or case.quantity == got.quantity,
        "category": case.category is None or case.category == got.category,
        "includes": case.category not in (Category.SERVER, Category.BOARD)
        or _same_includes(case.includes, got.includes),
    }
    wrong = tuple(name for name, ok in checks.items() if not ok)
    return Mistake(case=case, predicted=got, fields=wrong) if wrong else None


def render_accuracy_report(report: AccuracyReport, *, max_mistakes: int = 40) -> str:
    """A plain-text summary: totals, a table by SKU, then the first ``max_mistakes`` mistakes."""
    lines = [
        f"labeled titles: {report.cases}",
        f"sku precision:  {report.sku_precision}",
        f"sku recall:     {report.sku_recall}",
        f"kind:           {report.kind}",
        f"quantity:       {report.quantity}",
        f"includes:       {report.includes}",
        f"category:       {report.category}",
        "",
        *_sku_table(report.per_sku),
        "",
        f"mistakes: {len(report.mistakes)} (first {min(max_mistakes, len(report.mistakes))})",
    ]
    lines += [_render_mistake(m) for m in report.mistakes[:max_mistakes]]
    return "\n".join(lines)


def _sku_table(scores: Sequence[SkuScore]) -> list[str]:
    width = max((len(s.sku) for s in scores), default=3)
    header = f"{'sku':<{width}}  support  predicted  correct  precision  recall"
    rows = [
        f"{s.sku:<{width}}  {s.support:>7}  {s.predicted:>9}  {s.correct:>7}"
        f"  {s.precision.value:>9.3f}  {s.recall.value:>6.3f}"
        for s in scores
    ]
    return [header, "-" * len(header), *rows]


def _render_mistake(mistake: Mistake) -> str:
    case, got = mistake.case, mistake.predicted
    expected = {
        "sku": case.sku,
        "kind": case.kind.value,
        "quantity": case.quantity,
        "category": case.category.value if case.category else None,
        "includes": _includes_text(case.includes),
    }
    actual = {
        "sku": got.sku,
        "kind": got.kind.value,
        "quantity": got.quantity,
        "category": got.category.value if got.category else None,
        "includes": _includes_text(got.includes),
    }
    diffs = ", ".join(f"{f}: {expected[f]} -> {actual[f]}" for f in mistake.fields)
    return f"- {case.title!r} [{case.source}] {diffs}"


def _includes_text(items: Sequence[Included]) -> str:
    return ",".join(f"{i.sku}:{i.quantity}" for i in items) or "-"
