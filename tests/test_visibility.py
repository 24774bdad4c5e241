"""Per-viewer filtering (rallypoint.core.visibility with the rulesets' declarations)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rallypoint.core.events import (
    Created,
    EventRecord,
    canonical_json,
    event_hash,
    verify_chain,
)
from rallypoint.core.visibility import (
    BLIND,
    EVERYTHING,
    PUBLIC,
    REDACTED,
    REFEREE,
    WITHHELD,
    NotYourSeatError,
    Viewer,
    authorize_command,
    check_reveal,
    declaration_of,
    event_secrets,
    is_redacted,
    redact_events,
    redact_view,
    verify_visible_chain,
)
from rallypoint.session import Session
from rallypoint.session.results import campaign_view
from seats_kit import SECRET_OF, execute, scrub, two_sided

FINLAND, SOVIET = Viewer.of_side("finland"), Viewer.of_side("soviet")
TCS = declaration_of("tcs")


@pytest.fixture
def played(tmp_path: Path) -> tuple[Session, str]:
    session = Session(tmp_path / "c.sqlite3")
    return session, two_sided(session)


def _records(session: Session, ref: str) -> list[EventRecord]:
    return list(session.load(ref, whole=True).events)


def _text(records: list[EventRecord]) -> str:
    return scrub(json.dumps([r.model_dump() for r in records], ensure_ascii=False))


def test_each_side_sees_its_own_secrets_and_none_of_the_other(played: tuple[Session, str]) -> None:
    session, ref = played
    records = _records(session, ref)
    for viewer, mine, theirs in ((FINLAND, "finland", "soviet"), (SOVIET, "soviet", "finland")):
        text = _text(redact_events(records, viewer))
        for secret in SECRET_OF[theirs]:
            assert secret not in text
        assert SECRET_OF[mine][0] in text
    public = _text(redact_events(records, PUBLIC))
    for side in SECRET_OF.values():
        assert not any(s in public for s in side)
    for viewer in (REFEREE, EVERYTHING):
        assert redact_events(records, viewer) == records


def test_a_redacted_event_keeps_its_hashes_and_says_what_it_withholds(
        played: tuple[Session, str]) -> None:
    session, ref = played
    records = _records(session, ref)
    seen = redact_events(records, SOVIET)
    written = seen[1]  # Finland's sheet
    assert written.type == "sheet_written" and is_redacted(written)
    assert (written.hash, written.prev_hash) == (records[1].hash, records[1].prev_hash)
    # Withheld values are left out, with the blind; one opaque part names the owner, no path.
    assert "centers" not in written.payload and BLIND not in written.payload
    assert written.payload[WITHHELD] == {"finland": None} and REDACTED not in written.payload
    # The Soviets' own sheet, and a public event, come back untouched.
    assert seen[2] is records[2] and seen[0] is records[0]
    # The check of Finland's sheet: the roll and the recovery roll withheld, the turn public.
    check = seen[6]
    assert check.type == "implementation_checked"
    assert "roll" not in check.payload and check.payload[WITHHELD] == {"finland": None}
    assert check.payload["turn"] == 4
    # A turn is sealed: each side sees only its own sheet's accrual, and the event says so
    # even to a viewer from whom nothing was taken (nobody learns whether the other accrues).
    turn = seen[3]
    assert [a["sheet"] for a in turn.payload["accruals"]] == ["S-lair"]
    assert turn.payload[WITHHELD] == {"@referee": None, "finland": None}
    assert is_redacted(redact_events(records, FINLAND)[3])


def test_the_opponent_verifies_the_redacted_chain(played: tuple[Session, str]) -> None:
    session, ref = played
    records = _records(session, ref)
    seen = redact_events(records, SOVIET)
    assert verify_chain(records) is None
    assert verify_visible_chain(seen) is None
    # An edit of an event shown whole (the Soviets' own sheet) is caught, as is a dropped or
    # reordered event. (A redacted event's public parts are checked at the reveal.)
    edited = [*seen]
    edited[2] = seen[2].model_copy(update={"recorded_at": "2030-01-01T00:00:00+00:00"})
    assert verify_visible_chain(edited) is not None
    assert verify_visible_chain([*seen[:3], *seen[4:]]) is not None
    assert verify_visible_chain([seen[0], seen[2], seen[1], *seen[3:]]) is not None


def test_the_reveal_must_match_what_was_shown(played: tuple[Session, str]) -> None:
    session, ref = played
    records = _records(session, ref)
    seen = redact_events(records, SOVIET)
    assert check_reveal(seen, records, SOVIET) is None
    # Finland edits its secret centre after the fact and re-hashes the whole chain: the hashes
    # the Soviets were shown no longer match.
    forged = []
    prev = records[0].prev_hash
    for record in records:
        payload = dict(record.payload)
        if record.seq == 2:
            payload["centers"] = {"1/ErP112": "21.15"}
        rehashed = record.model_copy(update={"payload": payload, "prev_hash": prev})
        rehashed = rehashed.model_copy(update={"hash": rehashed.expected_hash()})
        forged.append(rehashed)
        prev = rehashed.hash
    assert verify_chain(forged) is None
    problem = check_reveal(seen, forged, SOVIET)
    assert problem is not None and problem.seq == 2


def test_secret_events_are_blinded_against_guessing(played: tuple[Session, str]) -> None:
    session, ref = played
    records = _records(session, ref)
    hides = event_secrets(records, TCS)
    for record, hidden in zip(records, hides, strict=True):
        assert (BLIND in record.payload) == hidden.secret, record.type
    # Without the blind, every row and size an opponent might guess fails to give the hash.
    written = redact_events(records, SOVIET)[1]
    full = records[1].payload
    for row in range(1, 9):
        guess = {**{k: v for k, v in full.items() if k != BLIND}, "row": row}
        assert event_hash(written.campaign_id, written.seq, written.type, guess,
                          written.recorded_at, written.prev_hash) != written.hash
    assert len(hashlib.sha256(canonical_json(full[BLIND]).encode()).hexdigest()) == 64


def test_a_one_sided_campaign_hides_nothing_and_blinds_nothing(tmp_path: Path) -> None:
    from rallypoint.core.registry import get_ruleset

    session = Session(tmp_path / "c.sqlite3")
    scenario = get_ruleset("tcs").example_scenarios()[0]
    info = session.create(scenario, name="solo")
    execute(session, info.id, {"kind": "write_sheet", "sheet": "S", "members": ["ErP112"],
                               "centers": {"1/ErP112": "23.15", "2/ErP112": "17.21",
                                           "3/ErP112": "8.21", "MG/ErP112": "8.21"},
                               "size": 0, "attest": True})
    records = _records(session, info.id)
    assert all(BLIND not in r.payload for r in records)
    assert redact_events(records, Viewer.of_side("finland")) == records


def test_views_leave_out_the_other_sides_sheets_and_decisions(
        played: tuple[Session, str]) -> None:
    session, ref = played
    campaign = session.load(ref)
    view = campaign_view(campaign)
    scenario = campaign.created.scenario
    assert [d["subject"] for d in view["pending"]] == ["1/ErP112"]
    soviet = redact_view(view, scenario, SOVIET, TCS)
    finland = redact_view(view, scenario, FINLAND, TCS)
    assert list(soviet["state"]["sheets"]) == ["S-lair"]
    assert soviet["pending"] == [] and soviet["state"]["recoveries"] == []
    assert list(finland["state"]["sheets"]) == ["F-hideout"]
    assert len(finland["pending"]) == 1
    text = json.dumps(soviet)
    assert not any(s in text for s in SECRET_OF["finland"])
    # The table is public: the Soviets see Finland's counters and battalion morale.
    assert soviet["state"]["companies"] == view["state"]["companies"]
    assert redact_view(view, scenario, REFEREE, TCS) == view


def test_commands_are_authorized_per_seat(played: tuple[Session, str]) -> None:
    session, ref = played
    campaign = session.load(ref)
    state = campaign.ruleset.state_json(campaign.state)
    scenario = campaign.created.scenario

    def allowed(viewer: Viewer, command: Mapping[str, object]) -> bool:
        try:
            authorize_command(command, state, scenario, viewer, TCS)
        except NotYourSeatError:
            return False
        return True

    check_f = {"kind": "check", "sheet": "F-hideout"}
    assert allowed(FINLAND, check_f) and not allowed(SOVIET, check_f)
    assert allowed(REFEREE, check_f) and not allowed(PUBLIC, check_f)
    assert allowed(SOVIET, {"kind": "loss", "counter": "1/609-1"})
    assert not allowed(SOVIET, {"kind": "loss", "counter": "1/ErP112-1"})
    assert not allowed(SOVIET, {"kind": "distribute", "company": "1/ErP112"})
    assert not allowed(FINLAND, {"kind": "write_sheet", "members": ["ErP112", "1/609"]})
    assert allowed(FINLAND, {"kind": "turn"}) and allowed(SOVIET, {"kind": "turn"})
    assert allowed(SOVIET, {"kind": "fo"}) and not allowed(FINLAND, {"kind": "fo"})
    # A guessed sheet name gets the same refusal whether or not the other side has one.
    messages = set()
    for sheet in ("F-hideout", "no-such-sheet"):
        with pytest.raises(NotYourSeatError) as caught:
            authorize_command({"kind": "check", "sheet": sheet}, state, scenario, SOVIET, TCS)
        messages.add(str(caught.value))
    assert len(messages) == 1


def test_undoing_a_secret_event_keeps_its_summary_secret(played: tuple[Session, str]) -> None:
    session, ref = played
    session.undo(ref)
    records = _records(session, ref)
    undone = redact_events(records, SOVIET)[-1]
    assert undone.type == "undone" and "summary" not in undone.payload
    assert undone.payload[WITHHELD] == {"finland": None} and BLIND in records[-1].payload
    assert redact_events(records, FINLAND)[-1] is records[-1]


def test_a_legacy_public_seed_is_the_referees_alone_in_a_shared_campaign(
        tmp_path: Path) -> None:
    session = Session(tmp_path / "c.sqlite3")
    ref = two_sided(session, seed="public-seed-text")
    records = _records(session, ref)
    assert Created.model_validate(records[0].payload).seed == "public-seed-text"
    assert "public-seed-text" not in _text(redact_events(records, FINLAND))
    referee_sees = redact_events(records, REFEREE)[0].payload
    assert Created.model_validate(referee_sees).seed == "public-seed-text"


@pytest.mark.parametrize("ruleset", ["platoon", "squares"])
def test_platoon_and_squares_declare_nothing_secret(ruleset: str) -> None:
    from rallypoint.core.registry import get_ruleset
    from rallypoint.core.tomlfile import load_ruleset_file  # noqa: F401  (import check only)

    rules = get_ruleset(ruleset)
    scenario = rules.load_scenario(rules.example_scenarios()[0])
    declared = declaration_of(ruleset)
    state = rules.state_json(rules.initial_state(scenario, rules.rules_data(scenario)))
    assert declared.view_secrets(scenario, state) == ()
    assert declared.sides(scenario)


def test_a_withheld_event_has_a_public_summary(played: tuple[Session, str]) -> None:
    session, ref = played
    seen = redact_events(_records(session, ref), SOVIET)
    assert TCS.public_summary(seen[1].type, seen[1].payload) == \
        "a Recovery Op Sheet was written (withheld)"
    assert TCS.public_summary(seen[3].type, seen[3].payload) == \
        "turn 2 (08:20): sheet S-lair +3 (3 weighted turns); the due FO roll was skipped: " \
        "FO/609-1 stay dead this hour"
    assert TCS.public_summary(seen[6].type, seen[6].payload) == \
        "an implementation check (withheld)"


def test_reassigning_and_attacks_on_recovering_formations_are_the_owners(
        played: tuple[Session, str]) -> None:
    session, ref = played
    execute(session, ref, {"kind": "reassign", "members": ["1/609"], "other_sheet": True,
                           "reason": "S-lair-defence"})
    execute(session, ref, {"kind": "attack", "members": ["1/609"], "note": "S-lair-raid"})
    records = _records(session, ref)
    assert [r.type for r in records[-2:]] == ["reassigned", "attacked"]
    finland = _text(redact_events(records, FINLAND)[-2:])
    assert "S-lair" not in finland
    assert "S-lair-raid" in _text(redact_events(records, SOVIET)[-2:])
    campaign = session.load(ref)
    state = campaign.ruleset.state_json(campaign.state)
    for kind in ("reassign", "attack"):
        command = {"kind": kind, "members": ["1/609"]}
        with pytest.raises(NotYourSeatError):
            authorize_command(command, state, campaign.created.scenario, FINLAND, TCS)
        authorize_command(command, state, campaign.created.scenario, SOVIET, TCS)


def test_the_withheld_digest_is_the_hash_of_the_redacted_list(
    played: tuple[Session, str],
) -> None:
    """The digest a turn file's signed header carries, summed one event at a time
    (``RedactedDigest``), is SHA-256 of the canonical JSON of ``[[seq, payload], ...]`` of the
    redacted events, written out here in one piece: files signed before the streamed import
    still check."""
    from rallypoint.store.visibility import redacted_digest

    session, ref = played
    shown = redact_events(_records(session, ref), SOVIET)
    hidden = [[r.seq, r.payload] for r in shown if is_redacted(r)]
    assert len(hidden) >= 2
    assert redacted_digest(shown) == hashlib.sha256(
        json.dumps(hidden, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        .encode("utf-8")).hexdigest()
    assert redacted_digest(_records(session, ref)) is None  # nothing redacted for the owner


_EDITS = ("redact", "undo", "stranger", "not opaque")


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.sampled_from(_EDITS), st.integers(1, 40), st.integers(1, 40)),
                      max_size=3))
def test_honest_redactions_one_event_at_a_time_judge_as_the_whole_function(
        played: tuple[Session, str], edits: list[tuple[str, int, int]]) -> None:
    """The streamed check (``HonestRedactions``, a byte an event) against the whole function
    (``dishonest_redaction``, the oracle): the Soviet view of a played log with an undo, edited
    as a sender might (an event of any type shown redacted, an undo of any earlier event shown
    redacted, a withheld part naming a stranger or holding a value)."""
    from rallypoint.store.visibility import HonestRedactions, dishonest_redaction

    session, ref = played
    if not session.load(ref).undone:
        session.undo(ref)
    log = redact_events(_records(session, ref), SOVIET)
    for edit, at, target in edits:
        at = 1 + at % (len(log) - 1)
        part: dict[str, object] = {"finland": None}
        if edit == "undo":
            payload = {"target": 1 + target % at, WITHHELD: part}
            log[at] = log[at].model_copy(update={"type": "undone", "payload": payload})
            continue
        if edit != "redact":
            part = {"nobody": None} if edit == "stranger" else {"finland": 1}
        log[at] = log[at].model_copy(update={"payload": {WITHHELD: part}})
    walk = HonestRedactions(log[0])
    try:
        streamed = all([walk.honest(r) for r in log])
    except LookupError:  # a redacted undo of no earlier event: left to the whole function
        assert any(r.type == "undone" and is_redacted(r)
                   and r.payload.get("target") not in range(1, r.seq) for r in log)
        return
    assert streamed == (dishonest_redaction(log) is None)
