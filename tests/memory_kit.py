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


def working_growth(run: Callable[[], Any]) -> int:
    """Peak bytes Python allocated during ``run`` beyond what was held before it and what it
    left held after (its answer): the memory the step worked in, when its answer itself grows
    with its input (``verify FILE``'s list of every verdict)."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        run()
        gc.collect()
        kept, peak = tracemalloc.get_traced_memory()
        return peak - max(base, kept)
    finally:
        tracemalloc.stop()
