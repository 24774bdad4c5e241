"""Built-in rulesets, each in its own package.

Nothing is registered by importing this package: every ruleset declares a
:class:`~rallypoint.core.registry.RulesetPlugin` in its ``plugin`` module, named by an entry point
in the ``rallypoint.rulesets`` group (``pyproject.toml``). A new ruleset is a new package here
plus one entry-point line; the core and the front ends find it by looping over the registry.
"""
