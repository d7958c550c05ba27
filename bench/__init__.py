"""Benchmarks: each module has ``run(...) -> dict`` comparing rigscout against a baseline in the
same run. ``python -m bench`` runs them all; ``python -m bench parse normalize`` runs some.

Besides the benchmarks: what the benchmarks and the tests both measure with (the labeled
titles' scorer, the auction bid histories, the exhaustive rig search the planner is checked
against) and where the data lives. The tests import these from here; nothing here imports the
tests but their stand-ins for outside services (``tests.support``)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
SHARED = Path(os.environ.get("RIGSCOUT_SHARED", ROOT.parent / "shared"))
SAMPLES = SHARED / "ebay-samples"
