"""numpy dice for the simulation lab: the one lab module that touches a random number generator.

Seeding scheme (every simulation result records it):

1. A run has one root ``numpy.random.SeedSequence(entropy)``. ``--seed S`` gives the entropy; with
   no seed, numpy draws fresh entropy from the OS and the result logs it, so any run can be
   repeated exactly.
2. The work is split into a fixed number of chunks (not one per worker) and the root is
   ``spawn``-ed into one child per chunk, in chunk order.
3. Each chunk rolls with ``Generator(PCG64DXSM(child))``: faces for the scalar engine through
   :class:`NumpyRoller`, whole arrays of dice for the vectorised kernels through
   :func:`natural_values`.

Because the chunk count, the children and the runs per chunk depend only on the parameters, the
same seed gives identical results on any backend and with any number of workers. numpy does not
promise the same stream across its own versions, so every result also records
``numpy.__version__``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from rallypoint.core.errors import MalformedInputError
from rallypoint.dice import ChanceNode, DiceSpec, Read

BIT_GENERATOR = "PCG64DXSM"
"""The bit generator every lab run uses (numpy's recommended successor to PCG64)."""

IntArray = npt.NDArray[np.int64]


def numpy_version() -> str:
    """The numpy version a result was produced with (streams may change between versions)."""
    return str(np.__version__)


def root_sequence(entropy: int | None) -> np.random.SeedSequence:
    """The run's root seed sequence; ``None`` asks the OS for fresh entropy (read it back from
    ``.entropy`` and log it)."""
    if entropy is not None and entropy < 0:
        raise MalformedInputError(f"seed {entropy} is negative",
                                  fix="Give a whole number of 0 or more, e.g. --seed 42.")
    return np.random.SeedSequence(entropy)


def entropy_of(sequence: np.random.SeedSequence) -> int:
    """The entropy of a root sequence as a plain int (what results log)."""
    entropy = sequence.entropy
    if entropy is None or not isinstance(entropy, int | np.integer):
        raise MalformedInputError("the seed sequence has no single integer entropy",
                                  fix="Build it with root_sequence(seed).")
    return int(entropy)


def chunk_sequences(entropy: int, chunks: int) -> list[np.random.SeedSequence]:
    """One spawned child per chunk, in chunk order (the same list for the same entropy)."""
    return root_sequence(entropy).spawn(chunks)


def generator(sequence: np.random.SeedSequence) -> np.random.Generator:
    """``Generator(PCG64DXSM(sequence))``."""
    return np.random.Generator(np.random.PCG64DXSM(sequence))


class NumpyRoller:
    """A :class:`~rallypoint.dice.Roller` backed by a numpy generator (for the scalar engine).

    Args:
        generator: The chunk's ``Generator(PCG64DXSM(...))``.
    """

    def __init__(self, generator: np.random.Generator) -> None:
        self._generator = generator

    @property
    def generator(self) -> np.random.Generator:
        """The chunk's generator (the lab draws what happens *to* a rest from it, e.g.
        interruptions; rule code only ever sees faces)."""
        return self._generator

    def faces(self, node: ChanceNode) -> tuple[int, ...]:
        """One face per die of ``node``, each uniform in 1..sides."""
        dice = node.dice
        drawn = self._generator.integers(1, dice.sides + 1, size=dice.count)
        return tuple(int(f) for f in drawn)


def natural_values(gen: np.random.Generator, spec: DiceSpec,
                   shape: int | Sequence[int]) -> IntArray:
    """An array of natural (unmodified) values of ``spec``, read as the rules read them.

    Args:
        gen: The chunk's generator.
        spec: What is rolled (``D6``, ``TWO_D6``, ``D66`` …).
        shape: Shape of the result (one value per roll).

    Returns:
        int64 values: the sum of the faces, or tens-and-units for ``d66``.
    """
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    if spec.count == 1:
        return gen.integers(1, spec.sides + 1, size=dims, dtype=np.int64)
    faces = gen.integers(1, spec.sides + 1, size=(spec.count, *dims), dtype=np.int64)
    if spec.read is Read.TENS_UNITS:
        result: IntArray = faces[0] * 10 + faces[1]
        return result
    summed: IntArray = faces.sum(axis=0)
    return summed


def die_faces(gen: np.random.Generator, sides: int, count: int) -> npt.NDArray[np.int8]:
    """``count`` faces of one die as small ints (the kernels' fast path for a single die)."""
    return gen.integers(1, sides + 1, size=count, dtype=np.int8)
