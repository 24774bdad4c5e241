"""How much memory a step takes beyond what was held before it (the streaming tests' measure:
a pass that holds the log grows with it, one that streams does not)."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from typing import Any


def peak_growth(run: Callable[[], Any]) -> int:
    """Peak bytes Python allocated during ``run`` beyond what was held before it."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        run()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
