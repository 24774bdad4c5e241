"""The shape of the code base, checked exactly on the syntax tree.

- core and dice know no ruleset and no front end; dice does not import core at all (the errors
  live in the leaf module ``rallypoint.errors``); rulesets never import a store or a front end.
  Modules are matched by exact name, so ``from rallypoint import rulesets`` and
  ``importlib.import_module("rallypoint.rulesets")`` count as importing ``rallypoint.rulesets``.
- Rule code never touches an RNG: no ``random``, ``secrets`` or ``numpy.random`` import, and no
  ``np.random``/``random.``/``secrets.`` attribute access.
- Nothing outside a ruleset's own folder compares a value with a ruleset's name (``==``, ``!=``,
  ``in``, ``not in``, ``match`` cases), so a new ruleset needs no edit elsewhere.

The checkers are plain functions over source text; the planted violations below prove that each
one flags what it is for.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

from rallypoint.core.registry import plugins

SRC = Path(__file__).resolve().parents[1] / "src" / "rallypoint"
RULESET_NAMES = frozenset(plugins())
FRONT_ENDS = ("rallypoint.store", "rallypoint.cli", "rallypoint.web", "rallypoint.lab",
              "rallypoint.session")
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "core": ("rallypoint.rulesets", *FRONT_ENDS),
    "dice": ("rallypoint.core", "rallypoint.rulesets", *FRONT_ENDS),
    "rulesets": FRONT_ENDS,
    # Front ends go through the session API: no store, no campaign folding of their own.
    "cli": ("rallypoint.store", "rallypoint.core.campaign"),
    "lab": ("rallypoint.store", "rallypoint.core.campaign"),
    "web": ("rallypoint.store", "rallypoint.core.campaign"),
}
"""Top-level package → the modules (and everything under them) it must never import."""
RNG_MODULES = frozenset({"random", "secrets", "numpy.random"})
ALLOWED_RNG = {("core/campaign.py", "secrets.token_hex")}
"""A new campaign's random seed is not a roll: the one place the core may draw randomness."""


def _module_of(path: str) -> str:
    parts = path.removesuffix(".py").split("/")
    return ".".join(["rallypoint", *parts]).removesuffix(".__init__")


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node except those under ``if TYPE_CHECKING:`` (annotations do not run)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return [n for n in ast.walk(tree) if id(n) not in skipped]


def imported_modules(source: str, path: str) -> set[str]:
    """Every module ``source`` (at ``path`` under src/rallypoint) imports at run time, by exact
    name: ``from a import b`` yields both ``a`` and ``a.b``; relative imports are resolved;
    ``importlib.import_module("x")`` with a literal yields ``x``."""
    package = _module_of(path).rsplit(".", 1)[0] if not path.endswith("__init__.py") \
        else _module_of(path)
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif (isinstance(node, ast.Call) and ast.unparse(node.func).endswith("import_module")
              and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)):
            found.add(node.args[0].value)
    return found


FRONT_PART_MAY_IMPORT = ("rallypoint.session", "rallypoint.core", "rallypoint.dice",
                         "rallypoint.cli.kit", "rallypoint.web.kit", "rallypoint.lab.kit")
"""Beside its own ruleset, all a ruleset's front part (``rulesets/<name>/front/``) may import of
rallypoint: the session API, the core, the dice and the front ends' published kits."""

HOMELESS: frozenset[str] = frozenset()
"""Files outside a ruleset's folder that still import it: each ruleset's front parts are moving
home (issue 21), and this list only shrinks; a file that moved or stopped importing a ruleset
must leave it (test_homeless_list_is_true)."""


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _ruleset_of(path: str) -> str | None:
    parts = path.split("/")
    return parts[1] if parts[0] == "rulesets" and len(parts) > 2 else None


def _front_part_imports(found: set[str], own: str) -> list[str]:
    """A ruleset's front part: rallypoint only through the session API, the core, the dice,
    the kits and its own ruleset."""
    allowed = (*FRONT_PART_MAY_IMPORT, f"rallypoint.rulesets.{own}")
    return [m for m in found if _under(m, "rallypoint") and m != "rallypoint"
            and (not any(_under(m, a) for a in allowed)
                 # Like every front end: campaigns come from the session, never folded here.
                 or _under(m, "rallypoint.core.campaign"))]


def _other_rulesets(found: set[str], own: str | None) -> list[str]:
    """Nothing outside ``rulesets/<name>/`` imports ``rallypoint.rulesets.<name>``."""
    return [m for m in found if _under(m, "rallypoint.rulesets") and m != "rallypoint.rulesets"
            and m.split(".")[2] != own]


def forbidden_imports(source: str, path: str) -> list[str]:
    """Imports that break the layering for the package ``path`` is in."""
    found = imported_modules(source, path)
    own = _ruleset_of(path)
    if own is not None and path.split("/")[2] == "front":
        return sorted(set(_front_part_imports(found, own) + _other_rulesets(found, own)))
    banned = FORBIDDEN.get(path.split("/")[0], ())
    problems = [m for m in found if any(_under(m, b) for b in banned)]
    if own is not None:
        problems += [m for m in found if _under(m, f"rallypoint.rulesets.{own}.front")]
    if path not in HOMELESS:
        problems += _other_rulesets(found, own)
    return sorted(set(problems))


def rng_uses(source: str, path: str) -> list[str]:
    """RNG imports and ``np.random``/``random.``/``secrets.`` accesses in rule code (a ruleset's
    front part is not rule code: its lab kernels draw vectorised dice as the lab does)."""
    parts = path.split("/")
    if parts[0] not in {"rulesets", "core"} or parts[2:3] == ["front"]:
        return []
    allowed = {text.split(".")[0] for where, text in ALLOWED_RNG if where == path}
    problems = [f"imports {m}" for m in sorted(imported_modules(source, path))
                if m in RNG_MODULES and m not in allowed]
    for node in _runtime_nodes(ast.parse(source)):
        if not isinstance(node, ast.Attribute):
            continue
        text = ast.unparse(node)
        head = text.split(".")[0]
        if (head in {"random", "secrets"} and text.count(".") == 1
                and (path, text) not in ALLOWED_RNG) or text.endswith(
                ("np.random", "numpy.random")):
            problems.append(f"line {node.lineno}: {text}")
    return problems


def _names_in(node: ast.AST) -> set[str]:
    """Ruleset names a comparison operand spells out: a string, or a tuple/list/set of them."""
    items = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    return {i.value for i in items if isinstance(i, ast.Constant) and i.value in RULESET_NAMES}


def ruleset_name_branches(source: str, path: str) -> list[str]:
    """Comparisons with a ruleset's name outside that ruleset's own folder."""
    parts = path.split("/")
    own = parts[1] if parts[0] == "rulesets" and len(parts) > 2 else None
    problems = []
    for node in ast.walk(ast.parse(source)):
        names: set[str] = set()
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                names |= _names_in(side)
        elif isinstance(node, ast.MatchValue):
            names |= _names_in(node.value)
        if names - {own}:
            problems.append(f"line {getattr(node, 'lineno', '?')}: {ast.unparse(node)}")
    return problems


def view_probes(source: str, path: str) -> list[str]:
    """``getattr``/``hasattr`` on a ruleset's view in the web: the typed
    :class:`rallypoint.web.rulesets.RulesetView` replaced that convention (a misspelt name fell
    back to the generic behaviour without a word)."""
    if path.split("/")[0] != "web":
        return []
    return [f"line {node.lineno}: {ast.unparse(node)}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and ast.unparse(node.func) in {"getattr", "hasattr"}
            and node.args and "view" in ast.unparse(node.args[0]).lower()]


def module_imports(source: str, path: str, known: frozenset[str]) -> set[str]:
    """The modules of ``known`` that ``source`` (at ``path``) imports at run time, at any depth
    of the file (function-level imports included: they hide a circle, they do not break it).

    ``from p import n`` is an import of the module ``p.n`` when there is one, else of ``p``;
    the parent packages Python initialises on the way are not counted (a package's own
    ``__init__`` counts only when a name is taken from it).
    """
    package = _module_of(path).rsplit(".", 1)[0] if not path.endswith("__init__.py") \
        else _module_of(path)
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                child = f"{base}.{alias.name}"
                found.update({child} if child in known else {base} & known)
    found.discard(_module_of(path))
    return found


def import_circles(sources: dict[str, str]) -> list[list[str]]:
    """Every circle of imports among ``sources`` (path under src/rallypoint → text): each
    strongly connected group of two or more modules, sorted."""
    names = {_module_of(path): path for path in sources}
    known = frozenset(names)
    graph = {name: module_imports(sources[path], path, known) for name, path in names.items()}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        order[v] = low[v] = len(order)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in order:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], order[w])
        if low[v] == order[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for name in sorted(graph):
        if name not in order:
            visit(name)
    return sorted(circles)


SOURCES = sorted(SRC.rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(SRC).as_posix()


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_layering(path: Path) -> None:
    assert forbidden_imports(path.read_text(encoding="utf-8"), _rel(path)) == []


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_rule_code_never_touches_an_rng(path: Path) -> None:
    if path.name == "rollers.py":
        return
    assert rng_uses(path.read_text(encoding="utf-8"), _rel(path)) == []


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_no_branching_on_a_ruleset_name(path: Path) -> None:
    assert ruleset_name_branches(path.read_text(encoding="utf-8"), _rel(path)) == []


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_the_web_reads_views_by_their_contract(path: Path) -> None:
    assert view_probes(path.read_text(encoding="utf-8"), _rel(path)) == []


def test_homeless_list_is_true() -> None:
    """Every file on HOMELESS exists and still imports a ruleset (else it must leave the list)."""
    stale = []
    for rel in sorted(HOMELESS):
        path = SRC / rel
        if not path.exists() or not _other_rulesets(
                imported_modules(path.read_text(encoding="utf-8"), rel), None):
            stale.append(rel)
    assert stale == []


def test_flags_a_front_part_reaching_past_the_kits() -> None:
    planted = ("from rallypoint.cli.session import console\n"
               "from rallypoint.cli.kit import console\n"
               "from rallypoint.session import open_campaign\n"
               "from rallypoint.rulesets.tcs.rules import x\n"
               "from rallypoint.rulesets.squares import grid\n"
               "from rallypoint.store import sqlite\n"
               "from rallypoint.core.campaign import Campaign\n")
    assert forbidden_imports(planted, "rulesets/tcs/front/cli.py") == [
        "rallypoint.cli.session", "rallypoint.cli.session.console",
        "rallypoint.core.campaign", "rallypoint.core.campaign.Campaign",
        "rallypoint.rulesets.squares", "rallypoint.rulesets.squares.grid", "rallypoint.store",
        "rallypoint.store.sqlite"]


def test_flags_rules_importing_their_front_part_or_a_ruleset_from_outside() -> None:
    assert forbidden_imports("from rallypoint.rulesets.tcs.front import cli\n",
                             "rulesets/tcs/rules.py") == [
        "rallypoint.rulesets.tcs.front", "rallypoint.rulesets.tcs.front.cli"]
    assert forbidden_imports("from rallypoint.rulesets.tcs import rules\n",
                             "web/pages.py") == [
        "rallypoint.rulesets.tcs", "rallypoint.rulesets.tcs.rules"]


def test_flags_a_view_probed_by_name() -> None:
    planted = ('x = getattr(view, "COMMANDS", {})\n'
               'if hasattr(view_module(n), "lab_rows"):\n    pass\n')
    assert view_probes(planted, "web/pages.py") == [
        "line 1: getattr(view, 'COMMANDS', {})", "line 2: hasattr(view_module(n), 'lab_rows')"]
    assert view_probes(planted, "cli/main.py") == []


def hidden_session_imports(source: str, path: str) -> list[str]:
    """Imports of a ``rallypoint.session`` module inside a function of session/: they once hid
    a circle (api -> dice -> pbem -> api); a session module's siblings are imported at its top."""
    if path.split("/")[0] != "session":
        return []
    tree = ast.parse(source)
    top = {id(node) for node in tree.body}
    return [f"line {node.lineno}: {ast.unparse(node)}" for node in _runtime_nodes(tree)
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in top
            and any(m == "rallypoint.session" or m.startswith("rallypoint.session.")
                    for m in imported_modules(ast.unparse(node), path))]


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_the_session_hides_no_import_in_a_function(path: Path) -> None:
    assert hidden_session_imports(path.read_text(encoding="utf-8"), _rel(path)) == []


def test_flags_a_session_import_in_a_function() -> None:
    planted = ("from rallypoint.session import pair\n\ndef f():\n"
               "    from rallypoint.session.pbem import verify_file\n"
               "    from rallypoint.store import EventStore\n")
    assert hidden_session_imports(planted, "session/dice.py") == [
        "line 4: from rallypoint.session.pbem import verify_file"]
    assert hidden_session_imports(planted, "cli/main.py") == []


def _texts(under: str = "") -> dict[str, str]:
    return {_rel(p): p.read_text(encoding="utf-8") for p in SOURCES
            if _rel(p).startswith(under)}


def test_the_session_imports_no_circle() -> None:
    # The session is a facade (session/api.py) over modules that never import it back, at the
    # top of a file or inside a function.
    assert import_circles(_texts("session/")) == []


KNOWN_CIRCLES: list[list[str]] = []
"""Circles left to break (issue 21); no new one may join them."""


def test_no_new_import_circle_anywhere() -> None:
    assert import_circles(_texts()) == KNOWN_CIRCLES


def test_flags_a_circle_hidden_in_a_function() -> None:
    planted = {
        "session/api.py": "from rallypoint.session import dice\n",
        "session/dice.py": "def f():\n    from rallypoint.session.pbem import g\n",
        "session/pbem.py": "from rallypoint.session.api import Session\n",
        "session/pair.py": "from rallypoint.session import api\n",
        "session/__init__.py": "from rallypoint.session.api import Session\n",
    }
    assert import_circles(planted) == [
        ["rallypoint.session.api", "rallypoint.session.dice", "rallypoint.session.pbem"]]
    # Broken at one edge, no circle is left; an import only for annotations is none.
    planted["session/dice.py"] = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                  "    from rallypoint.session.pbem import g\n")
    assert import_circles(planted) == []
    # A name taken from the package's __init__ is an import of it.
    planted["session/pair.py"] = ""
    planted["session/dice.py"] = "def f():\n    from rallypoint.session import Session\n"
    assert import_circles(planted) == [["rallypoint.session", "rallypoint.session.api",
                                        "rallypoint.session.dice"]]


def test_the_registry_knows_every_ruleset_folder() -> None:
    # Shipped rulesets are those whose rules live under rallypoint.rulesets; a third party's
    # (the toy of tests/toy_kit.py, say) may be installed beside them.
    folders = {p.parent.name for p in (SRC / "rulesets").glob("*/plugin.py")}
    shipped = {name: found.rules.split(".")[2] for name, found in plugins().items()
               if found.rules.startswith("rallypoint.rulesets.")}
    assert len(folders) >= 3
    assert shipped == {name: name for name in folders}, "each in a folder of its own name"


# --- the planted violations: each checker must flag what it exists for ----------------------

def test_flags_numpy_rng_in_rule_code() -> None:
    planted = "import numpy as np\n\ndef roll():\n    return np.random.default_rng().integers(6)\n"
    assert rng_uses(planted, "rulesets/tcs/rules.py") == [
        "line 4: np.random"]
    assert rng_uses("import random\nx = random.randint(1, 6)\n", "rulesets/squares/rally.py") == [
        "imports random", "line 2: random.randint"]
    assert rng_uses("import secrets\nx = secrets.randbelow(6)\n", "core/ruleset.py") == [
        "imports secrets", "line 2: secrets.randbelow"]
    assert rng_uses("from numpy import random\n", "rulesets/platoon/dice.py") == [
        "imports numpy.random"]
    # A front part's lab kernel draws dice as the lab does; a rule module named like it does not.
    assert rng_uses(planted, "rulesets/tcs/front/lab_kernel.py") == []
    assert rng_uses(planted, "rulesets/tcs/front.py") == ["line 4: np.random"]


def test_flags_the_rulesets_package_imported_by_core() -> None:
    assert forbidden_imports("from rallypoint import rulesets\n", "core/ruleset.py") == [
        "rallypoint.rulesets"]
    assert forbidden_imports("import rallypoint.rulesets\n", "core/ruleset.py") == [
        "rallypoint.rulesets"]
    assert forbidden_imports("from .. import rulesets\n", "core/ruleset.py") == [
        "rallypoint.rulesets"]
    assert forbidden_imports('import importlib\nimportlib.import_module("rallypoint.rulesets")\n',
                             "core/ruleset.py") == ["rallypoint.rulesets"]


def test_flags_a_ruleset_module_imported_by_core() -> None:
    assert forbidden_imports("from rallypoint.rulesets.tcs import RULESET\n",
                             "core/campaign.py") == ["rallypoint.rulesets.tcs",
                                                     "rallypoint.rulesets.tcs.RULESET"]


def test_flags_a_branch_on_a_ruleset_name() -> None:
    planted = 'def f(name):\n    if name in ("tcs", "platoon"):\n        return 1\n'
    assert ruleset_name_branches(planted, "cli/odds.py") == [
        "line 2: name in ('tcs', 'platoon')"]
    assert ruleset_name_branches('x = name == "squares"\n', "lab/odds.py") == [
        "line 1: name == 'squares'"]
    assert ruleset_name_branches('match name:\n    case "tcs":\n        pass\n', "core/x.py") == [
        "line 2: 'tcs'"]
    # A ruleset may check that something is its own, but not name another.
    assert ruleset_name_branches('ok = name == "tcs"\n', "rulesets/tcs/ruleset.py") == []
    assert ruleset_name_branches('bad = name == "tcs"\n', "rulesets/squares/ruleset.py") != []


def test_flags_dice_importing_core_but_not_annotations() -> None:
    assert forbidden_imports("from rallypoint.core.errors import MalformedInputError\n",
                             "dice/nodes.py") == ["rallypoint.core.errors",
                                                  "rallypoint.core.errors.MalformedInputError"]
    annotated = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                 "    from rallypoint.core.events import NewEvent\n")
    assert forbidden_imports(annotated, "dice/play.py") == []


def test_clean_code_is_not_flagged() -> None:
    clean = ('from rallypoint.errors import MalformedInputError\n'
             'from rallypoint.dice import roll\n'
             'kind = "sp"\nif kind == "disorder":\n    pass\n')
    for path in ("core/campaign.py", "rulesets/tcs/rules.py", "cli/odds.py"):
        assert forbidden_imports(clean, path) == []
        assert rng_uses(clean, path) == []
        assert ruleset_name_branches(clean, path) == []


def test_modules_stay_small() -> None:
    big = [(p, n) for p in SOURCES
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500]
    assert not big, f"modules over 500 lines: {big}"


# --- no ruleset named in the generic front ends, the session, the store, core or dice ---------

GENERIC_FOLDERS = ("cli", "core", "dice", "lab", "session", "store", "web")
"""Where no ruleset may be named in code (comments and docstrings may name them)."""
NAMED_FILES_LEFT = """
"""
"""Files that still name a ruleset, each waiting to move into its ruleset's ``front/`` (issue
21). Sorted, one a line, so parallel moves merge cleanly: this list only shrinks to empty."""


def _docstring_ids(tree: ast.AST) -> set[int]:
    # A string that is a whole statement is documentation (a docstring, or the attribute
    # docstring under a constant), never a value the code uses.
    return {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)}


def _spelt(node: ast.AST) -> list[str]:
    """What a node spells in code: a string value, a name, an attribute, a definition's or an
    argument's name, an import path."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.keyword):
        return [node.arg or ""]
    if isinstance(node, ast.alias):
        return [node.name, node.asname or ""]
    if isinstance(node, ast.ImportFrom):
        return [node.module or ""]
    return []


def _words(text: str) -> set[str]:
    # ``tcs_sim``, ``rallypoint.rulesets.tcs``, ``"TCS rules"`` and ``squares/lab.html`` all
    # name a ruleset: split on everything that is not a letter.
    return set(re.findall(r"[a-z]+", text.lower()))


def ruleset_names_in_code(source: str, names: frozenset[str]) -> list[str]:
    """Every place the code (not a docstring) spells one of ``names``: ``line N: text``."""
    tree = ast.parse(source)
    docs = _docstring_ids(tree)
    return [f"line {getattr(node, 'lineno', '?')}: {text}" for node in ast.walk(tree)
            if id(node) not in docs for text in _spelt(node) if _words(text) & names]


def ruleset_names_in_template(text: str, names: frozenset[str]) -> list[str]:
    """Every line of a template (its ``{# #}`` comments left out) that spells one of ``names``."""
    text = re.sub(r"\{#.*?#\}", lambda m: "\n" * m.group().count("\n"), text, flags=re.S)
    return [f"line {n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1)
            if _words(line) & names]


def _generic_files() -> list[Path]:
    found = [p for top in GENERIC_FOLDERS for p in (SRC / top).rglob("*.py")]
    templates = SRC / "web" / "templates"
    found += [p for p in templates.rglob("*.html")
              if p.relative_to(templates).parts[0] not in RULESET_NAMES]
    return sorted(found)


def _names_in_file(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".html":
        return ruleset_names_in_template(text, RULESET_NAMES)
    return ruleset_names_in_code(text, RULESET_NAMES)


def test_no_ruleset_is_named_outside_its_folder() -> None:
    left = NAMED_FILES_LEFT.split()
    assert left == sorted(set(left)), "keep NAMED_FILES_LEFT sorted, one a line"
    named = {_rel(p): hits for p in _generic_files() if (hits := _names_in_file(p))}
    assert {p: h for p, h in named.items() if p not in left} == {}, (
        "a generic file names a ruleset: ask the plugin registry instead")
    done = [p for p in left if p not in named]
    assert done == [], "moved or clean: take these off NAMED_FILES_LEFT"


def test_flags_a_ruleset_named_in_code_but_not_in_a_docstring() -> None:
    names = frozenset({"tcs", "squares"})
    planted = ('"""Shows a TCS sheet."""\n'
               "from rallypoint.lab import tcs_sim\n"
               "import rallypoint.rulesets.squares.rally as r\n"
               "X = 1\n\"\"\"The squares count.\"\"\"\n"
               "def f(view):\n    return view.squares_rows, get('TCS'), tcs_sim\n")
    assert sorted(ruleset_names_in_code(planted, names)) == [
        "line 2: tcs_sim", "line 3: rallypoint.rulesets.squares.rally", "line 7: TCS",
        "line 7: squares_rows", "line 7: tcs_sim"]
    assert ruleset_names_in_code('"""tcs"""\n# squares\nx = "generic"\n', names) == []
    assert ruleset_names_in_template(
        '{# the tcs sheets #}\n{% include "tcs/sheets.html" %}\n<p>squares</p>', names) == [
        'line 2: {% include "tcs/sheets.html" %}', "line 3: <p>squares</p>"]


# --- Any between the front ends and the rules: a ceiling that only goes down -----------------

BOUNDARY = ("rallypoint.core.ruleset", "rallypoint.core.registry", "rallypoint.core.erased",
            "rallypoint.core.erased:Checked", "rallypoint.core.parts",
            "rallypoint.core.visibility:Declaration",
            "rallypoint.core.scenario_check:ScenarioFiles", "rallypoint.cli.generic:Render",
            "rallypoint.web.rulesets:RulesetView", "rallypoint.web.rulesets:View",
            "rallypoint.session")
"""Where front ends meet rules: the plugin parts' Protocols and the registry (a module: its
public functions, Protocols and ``RulesetPlugin``), the erased ruleset the registry hands out
(``Checked``), the web's view contract, and the session
API (a package: everything in its ``__all__``)."""
ANY_CEILING = 0
"""``Any`` in those signatures today. Lower it when you type one; it may never rise."""


def _annotations(member: object) -> list[str]:
    if isinstance(member, property):
        member = member.fget
    if inspect.isfunction(member):
        return [str(a) for a in inspect.get_annotations(member).values()]
    return []


def _class_annotations(cls: type) -> list[str]:
    """A class's fields and its public methods' signatures, inherited ones from rallypoint
    included (a session facade's mixins), each once."""
    texts = [str(a) for a in inspect.get_annotations(cls).values()]
    seen: set[str] = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("rallypoint"):
            continue
        for name, member in vars(klass).items():
            if name not in seen and (not name.startswith("_") or name == "__call__"):
                seen.add(name)
                texts += _annotations(member)
    return texts


def _boundary_objects(ref: str) -> list[object]:
    module_name, _, attribute = ref.partition(":")
    module = importlib.import_module(module_name)
    if attribute:
        return [getattr(module, attribute)]
    if hasattr(module, "__all__"):
        return [getattr(module, name) for name in module.__all__]
    return [value for name, value in vars(module).items()
            if not name.startswith("_") and getattr(value, "__module__", "") == module_name
            and (inspect.isfunction(value) or getattr(value, "_is_protocol", False)
                 or name == "RulesetPlugin")]


def boundary_any(refs: tuple[str, ...]) -> dict[str, int]:
    """``Any`` in each boundary object's signatures (annotations as written): name → count."""
    counts: dict[str, int] = {}
    for ref in refs:
        for found in _boundary_objects(ref):
            texts = (_class_annotations(found) if inspect.isclass(found)
                     else _annotations(found))
            if n := sum(len(re.findall(r"\bAny\b", t)) for t in texts):
                counts[f"{found.__module__}.{found.__qualname__}"] = n  # type: ignore[attr-defined]
    return counts


def test_any_between_front_ends_and_rules_only_goes_down() -> None:
    counts = boundary_any(BOUNDARY)
    total = sum(counts.values())
    assert total <= ANY_CEILING, f"Any rose to {total} (ceiling {ANY_CEILING}): {counts}"
    assert total == ANY_CEILING, f"Any fell to {total}: lower ANY_CEILING to {total}"


def test_counts_any_in_a_protocol_and_a_function() -> None:
    import types

    module = types.ModuleType("rallypoint.planted_boundary")
    exec("from __future__ import annotations\n"
         "from typing import Any, Protocol\n"
         "class Part(Protocol):\n"
         "    def show(self, state: Any) -> dict[str, Any]: ...\n"
         "    @property\n    def name(self) -> str: ...\n"
         "def helper(x: Any, y: int) -> None: ...\n"
         "def _private(x: Any) -> Any: ...\n", module.__dict__)
    sys.modules[module.__name__] = module
    try:
        assert boundary_any((module.__name__,)) == {
            "rallypoint.planted_boundary.Part": 2, "rallypoint.planted_boundary.helper": 1}
    finally:
        del sys.modules[module.__name__]
