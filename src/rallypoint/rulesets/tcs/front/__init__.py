"""The tcs ruleset's front part: how players reach the rules, not the rules themselves.

Here live the CLI verbs and how ``show`` prints a campaign (:mod:`.cli`, :mod:`.resolve`), the
lab's commands, kernels and whole-campaign simulation (:mod:`.lab_cli`, :mod:`.lab_kernel`,
:mod:`.lab_sim`, :mod:`.lab_interruptions`), the campaign page (:mod:`.web`, its templates under
``templates/``) and the scenario builder's hints (:mod:`.web_builder`); the plugin
(``rulesets/tcs/plugin.py``) names each by ``module:attribute``.

A front part may import the session API (``rallypoint.session``), ``rallypoint.core``,
``rallypoint.dice``, this ruleset's own rules and third-party packages, and from the front ends
only their kits (``rallypoint.cli.kit``, ``rallypoint.web.kit``, ``rallypoint.lab.kit``). The
rules (everything in ``rulesets/tcs/`` outside ``front/``) never import anything here.
"""
