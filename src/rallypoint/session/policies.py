"""Named policies, and the pending decision a policy answers (``rallypoint answer``)."""

from __future__ import annotations

from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import IllegalNowError
from rallypoint.core.ruleset import Decision, E, PolicyInfo, Ruleset, S


def policy_named(ruleset: Ruleset[S, E], name: str | None) -> PolicyInfo[S]:
    """A ruleset's named policy (``None``: its default, the first).

    Raises:
        UnknownIdError: The ruleset has no policy of that name, in any case (the fix lists
            those it has).
    """
    policies = {p.name: p for p in ruleset.policies()}
    if name is None:
        return next(iter(policies.values()))
    from rallypoint.core.suggest import match_id

    # Any case (``BY_TRADE``); an unknown name is answered with the nearest.
    return policies[match_id(name, policies, "policy", fix=f"Use one of: {', '.join(policies)}.")]


def decision_of(campaign: Campaign, wanted: str | None) -> Decision:
    """The pending decision with key or subject ``wanted`` (``None``: the next one)."""
    pending = campaign.ruleset.pending(campaign.state)
    found = [d for d in pending if wanted is None or wanted in (d.key, d.subject)]
    if not found:
        keys = ", ".join(d.key for d in pending)
        raise IllegalNowError(
            "no decisions pending" if not pending else f"no pending decision {wanted!r}",
            fix=f"Answer one of: {keys}." if pending else "Nothing to answer.")
    return found[0]
