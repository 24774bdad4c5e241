"""Foraging: a ruleset of one command and one d6, written as a designer outside rallypoint would.

It lives outside ``src/`` on purpose: it registers by its entry point only (the ``.dist-info``
beside this folder), supplies no CLI verbs, renderer, web view or lab kernel, and so proves that
the generic fallbacks carry a ruleset through every front end (docs/own-ruleset.md).
"""
