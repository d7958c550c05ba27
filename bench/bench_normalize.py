"""Benchmark: titles normalized per second on one core, against the naive per-SKU regex loop.

Run ``python bench/bench_normalize.py [n]``. Titles cycle through the real eBay titles in
../shared/ebay-samples/datasets/titles_real.tsv (else our labeled fixture). The baseline runs
on a subset (``baseline_n``) and its rate is extrapolated; both rates are CPU time of this
single-threaded process, so other work on the machine does not count against either.
Both are also scored on the labeled titles (SKU precision and recall), so speed is never
bought with accuracy.
"""

from __future__ import annotations

import csv
import re
import sys
import time
import tomllib
from itertools import cycle, islice
from pathlib import Path

from bench.accuracy import load_labeled, score_accuracy
from ranking.catalog import CATALOG_DIR, load_catalog
from ranking.titles import Normalizer

ROOT = Path(__file__).resolve().parents[1]
REAL_TITLES = ROOT.parent / "shared" / "ebay-samples" / "datasets" / "titles_real.tsv"
FIXTURE_TITLES = ROOT / "fixtures" / "normalizer" / "labeled_titles.tsv"
_ACCESSORY = re.compile(
    r"heat ?sinks?|shroud|fan kit|bracket|backplate|riser|cable|adapter|water ?block|bridge"
    r"|box only|empty box|picture of",
    re.I,
)
_FOR_PARTS = re.compile(r"for parts|not working|as[ -]is|broken|faulty|defective", re.I)
_LOT = re.compile(r"lot of (\d+)|(\d+) ?x |qty:? ?(\d+)|\((\d+)\)|(\d+) ?pcs", re.I)


def load_titles() -> tuple[list[str], str]:
    """Real titles when the shared samples are present, else the labeled fixture's."""
    source = REAL_TITLES if REAL_TITLES.exists() else FIXTURE_TITLES
    with source.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [row[0] for row in rows[1:] if row and row[0]], str(source)


def naive_patterns() -> list[tuple[str, int, re.Pattern[str]]]:
    """The obvious baseline: one regex per SKU (any alias of its family, plus its memory size
    and form factor), each tried in turn; the most specific match wins."""
    aliases = tomllib.loads((CATALOG_DIR / "aliases.toml").read_text("utf-8"))["families"]
    patterns = []
    for sku in load_catalog():
        names = "|".join(
            r"[\s-]?".join(re.escape(word) for word in alias.split())
            for alias in aliases.get(sku.family, [])
        )
        if not names:
            continue
        parts = [rf"(?=.*\b(?:{names})\b)"]
        if sku.vram_gb:
            parts.append(rf"(?=.*\b{int(sku.vram_gb)}\s?gb?\b)")
        if sku.form_factor and sku.form_factor != "PCIe":
            parts.append(rf"(?=.*{sku.form_factor})")
        patterns.append((sku.sku, len(parts), re.compile("".join(parts), re.I)))
    return patterns


def naive_normalize(
    title: str, patterns: list[tuple[str, int, re.Pattern[str]]]
) -> tuple[str | None, str, int]:
    """Try every SKU's regex in turn (a 3090 also matches inside "3090 Ti", so all are tried
    and the most specific wins), then the accessory, for-parts and lot regexes."""
    matched = [(weight, sku) for sku, weight, pattern in patterns if pattern.match(title)]
    kind = (
        "accessory"
        if _ACCESSORY.search(title)
        else "for_parts"
        if _FOR_PARTS.search(title)
        else "item"
    )
    if not matched:
        return None, "other" if kind == "item" else kind, 1
    lot = _LOT.search(title)
    quantity = int(next(g for g in lot.groups() if g)) if lot else 1
    return max(matched)[1], kind, quantity


def naive_accuracy(patterns: list[tuple[str, int, re.Pattern[str]]]) -> tuple[float, float]:
    """The baseline's SKU precision and recall on the labeled titles."""
    labeled = load_labeled(FIXTURE_TITLES)
    guesses = [(case.sku, naive_normalize(case.title, patterns)[0]) for case in labeled]
    predicted = [(truth, guess) for truth, guess in guesses if guess is not None]
    correct = sum(truth == guess for truth, guess in predicted)
    support = sum(truth is not None for truth, _ in guesses)
    return correct / max(1, len(predicted)), correct / max(1, support)


def _rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def run(n: int = 1_000_000, baseline_n: int = 50_000) -> dict[str, object]:
    """Normalize ``n`` titles (cycling a real mix), then the naive baseline on ``baseline_n``."""
    titles, source = load_titles()
    normalizer = Normalizer(load_catalog())
    normalize = normalizer.normalize
    wall, cpu = time.perf_counter(), time.process_time()
    for title in islice(cycle(titles), n):
        normalize(title)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    patterns = naive_patterns()
    subset = min(baseline_n, n)
    base_cpu = time.process_time()
    for title in islice(cycle(titles), subset):
        naive_normalize(title, patterns)
    base_cpu = time.process_time() - base_cpu
    rate, base_rate = _rate(n, cpu), _rate(subset, base_cpu)
    ours = score_accuracy(load_labeled(FIXTURE_TITLES), normalize)
    base_precision, base_recall = naive_accuracy(patterns)
    return {
        "titles": n,
        "distinct_titles": len(titles),
        "source": source,
        "cpu_seconds": round(cpu, 3),
        "wall_seconds": round(wall, 3),
        "titles_per_s": round(rate),
        "baseline_titles": subset,
        "baseline_cpu_seconds": round(base_cpu, 3),
        "baseline_titles_per_s": round(base_rate),
        "baseline_extrapolated_seconds_for_n": round(n / base_rate, 1),
        "speedup": round(rate / base_rate, 1),
        "baseline_patterns": len(patterns),
        "sku_precision": round(ours.sku_precision.value, 3),
        "sku_recall": round(ours.sku_recall.value, 3),
        "baseline_sku_precision": round(base_precision, 3),
        "baseline_sku_recall": round(base_recall, 3),
    }


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    result = run(count)
    for key, value in result.items():
        print(f"{key:36} {value}")
    ours, naive = result["titles_per_s"], result["baseline_titles_per_s"]
    print(f"\n{ours:,} titles/s vs naive {naive:,} titles/s: {result['speedup']}x")
