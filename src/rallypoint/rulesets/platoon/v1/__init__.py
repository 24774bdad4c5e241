"""The platoon rules exactly as they were when events stored only a command and its dice (v1).

A v1 platoon event (every campaign before 2026-12-01) records the command and the faces it
rolled, not what changed: its outcome is *defined* by the rules of that time. Those rules are
pinned here, copied byte for byte from commit e3f4ee4 (only the imports point at this package),
so that a later fix to a live platoon rule can never change what an old campaign's history
says. Never edit these modules; ``tests/test_platoon_events.py`` checks their digests. Events
written since (v2) store their outcome and replay without any rule code.
"""
