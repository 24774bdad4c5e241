"""A command made against an older version of its campaign (a benign race between writers): when
the session decides it again at the current version, and how a refusal there reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import MalformedInputError, RallypointError, StaleVersionError


def expected_version(data: Mapping[str, Any]) -> int:
    """The whole-number ``expected_version`` of a command's JSON.

    Raises:
        MalformedInputError: It has none.
    """
    value = data.get("expected_version")
    if type(value) is not int:
        raise MalformedInputError(
            f"a command needs a whole-number expected_version, not {value!r}",
            where="expected_version", fix="Send the version of the state the player saw.")
    return value


def check_raceable(campaign: Campaign, expected: int | None) -> None:
    """Only a command made at an earlier version of this campaign can be decided again."""
    if expected is None or not 1 <= expected < campaign.version:
        raise StaleVersionError(
            f"the command was made against version {expected}, but {campaign.name!r} is at "
            f"version {campaign.version}", fix="Reload the campaign and make the command again.")


def no_longer_legal(campaign: Campaign, expected: int | None,
                    exc: RallypointError) -> StaleVersionError:
    """The refusal of a raced command that the rules refuse at the current version."""
    return StaleVersionError(
        f"the command was made against version {expected}, but {campaign.name!r} is at version "
        f"{campaign.version}, where it is refused: {exc.what}",
        where=exc.where, fix="Reload the campaign and make the command again.")
