"""The platoon's front part: what the command line, the web and the lab show and do for it.

Everything here is named by the plugin (:mod:`rallypoint.rulesets.platoon.plugin`) as
``module:attribute`` and imported only when a front end needs it: the ``rallypoint platoon``
verbs and the roster table (:mod:`.cli`, :mod:`.report_prompts`), the words the CLI types for
a due command (:mod:`.words`), the scene of ``rallypoint demo`` (:mod:`.demo`), the lab's odds
and simulate commands (:mod:`.lab_cli`) and its simulations (:mod:`.lab_sim`, the fast kernel
:mod:`.lab_fast`), and the campaign page (:mod:`.web`, its templates under ``templates/``).

Unlike the rules beside it, a front part may import the session API (``rallypoint.session``),
``rallypoint.core``, ``rallypoint.dice``, the platoon's own rules and third-party packages; of
the front ends only their published kits (``rallypoint.cli.kit``, ``rallypoint.web.kit``,
``rallypoint.lab.kit``), never their other modules, never the store, never another ruleset. The
rules never import it.
"""
