"""The error kinds, re-exported from the leaf module :mod:`rallypoint.errors`.

The errors live in a module that imports nothing of rallypoint, so ``dice`` can raise them without
importing ``core`` (and ``core`` can use dice without a cycle).
"""

from rallypoint.errors import (
    DataFileError,
    Fix,
    Hint,
    IllegalNowError,
    IntegrityError,
    MalformedInputError,
    MissingExtraError,
    RallypointError,
    StaleVersionError,
    StoreError,
    UnknownIdError,
)

__all__ = [
    "DataFileError",
    "Fix",
    "Hint",
    "IllegalNowError",
    "IntegrityError",
    "MalformedInputError",
    "MissingExtraError",
    "RallypointError",
    "StaleVersionError",
    "StoreError",
    "UnknownIdError",
]
