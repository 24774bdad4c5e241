"""The base of every frozen, validated value read from a data or scenario file."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class FrozenModel(BaseModel):
    """Immutable, and refuses unknown fields: a typo in a data file is an error, not a default."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
