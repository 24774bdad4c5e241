"""The squares ruleset's front part: how players meet the rules, not the rules themselves.

Here live the ``rallypoint squares`` verbs and the board drawn in a terminal (:mod:`.cli`,
:mod:`.board`), its commands of ``rallypoint odds`` and ``rallypoint simulate`` (:mod:`.lab_cli`)
with the rally-chain simulation they run (:mod:`.lab_sim`), and the campaign page and scenario
builder grid of the web (:mod:`.web`, :mod:`.web_builder`, ``templates/``). The plugin
(:mod:`rallypoint.rulesets.squares.plugin`) names each piece; the front ends import none of it.

A front part may import the session API (``rallypoint.session``), ``rallypoint.core``,
``rallypoint.dice``, the squares rules (the rest of this package), third-party packages, and of the
front ends only their published kits: ``rallypoint.cli.kit``, ``rallypoint.web.kit`` and
``rallypoint.lab.kit``. It never imports the store or another ruleset, and the rules beside it
never import it (tests/test_architecture.py).
"""
