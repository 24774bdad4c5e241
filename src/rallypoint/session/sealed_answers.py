"""Resolving a sealed pair round when the other seat's answer comes in (step 3 of
:mod:`rallypoint.session.sealed`): the kept command decided with both links, and its event
appended."""

from __future__ import annotations

from typing import Any

from rallypoint.core.errors import IllegalNowError
from rallypoint.dice.audit import logical_position
from rallypoint.dice.sealed import PairAnswer, sealed_roller
from rallypoint.dice.v1 import command_json
from rallypoint.session import commands, sealed
from rallypoint.session.handle import Handle
from rallypoint.session.pair import last_round
from rallypoint.session.results import Executed
from rallypoint.store.signing import seat_cards


def resolve_answer(session: Handle, campaign_id: str,
                   answer_: PairAnswer) -> Executed | None:
    """Decide this seat's kept sealed command with both links, and append its event.

    Called by ``import`` once the file carrying the answer is stored (and callable again, e.g.
    after a crash between the two: the answer comes again in the other seat's files).

    Returns:
        The event, or ``None`` when no kept request of this seat waits for this answer at the
        log's position (resolved already, or the log moved on).

    Raises:
        IntegrityError: The answer fails :func:`rallypoint.session.sealed.check_answer`.
    """
    with session._store() as store:
        records = store.events(campaign_id)
        cards = seat_cards(records[0].payload)
        mine = [s for s, c in cards.items() if store.seat_key(c.key) is not None]
        # A withdrawn request is still resolved while the log has not moved: the answer
        # crossed the withdrawal in the mail, and an answer binds its round.
        own = sealed.own_requests(store, campaign_id, mine, withdrawn=True).get(answer_.round)
        if own is None or own.position != logical_position(records) or (
                own.round <= last_round(records)):
            return None
        sealed.check_answer(answer_, own, records, cards)
    version = len(records)
    assert own.command is not None and own.link is not None and own.nonce is not None
    links = {own.seat: own.link, answer_.seat: answer_.link}
    nonce, command = bytes.fromhex(own.nonce), command_json(own.command)

    def roller(campaign: Any) -> Any:
        if campaign.version != version:
            raise IllegalNowError("the campaign moved while the sealed round was resolved",
                                  fix="Import the answer again")
        return sealed_roller(links, own.round, own.position, command, nonce, own.seat)

    done = commands.execute(session, campaign_id, {**command, "expected_version": version},
                            roller=roller)
    with session._store(write=True) as store:
        store.drop_dice_request(campaign_id, own.round)
    return done
