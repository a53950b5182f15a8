"""Mutation testing of the grader, the parsers, the metrics and the bank core: does the fast test
subset notice a small deliberate bug?

    python benchmarks/mutation.py                       # every group, 50 mutants each (seed 0), resumable
    python benchmarks/mutation.py --module matching     # one target (name as in TARGETS)
    python benchmarks/mutation.py --list                # the sampled mutants, without running anything
    python benchmarks/mutation.py --per-group 0         # no sampling (every mutant; hours)

A small self-written AST mutator (mutmut and cosmic-ray rewrite or copy the whole tree and re-import
it per mutant; with this package's mapped sub-packages and heavy imports that costs seconds per
mutant). Standard operators, one at a time, inside function bodies and module-level numeric
constants:

- comparison swaps: < <=, > >=, == !=, in / not in, is / is not
- arithmetic swaps: + -, * /, // /, % *, ** *; unary minus dropped
- boolean swaps: and / or; `not` dropped
- constants: True / False, an integer n -> n + 1, a float x -> x * 2 (0.0 -> 1.0); None is left
  alone (a sentinel, not a value); strings are not mutated (regex and message text: nearly every
  change is caught or is cosmetic, and they would triple the count)
- return swaps: `return <expr>` -> `return None`

How a mutant runs: the parent imports the libraries and the project once; per mutant it forks a
child that compiles the mutated module, swaps the new code objects into the *existing* function
objects (so every `from x import f` elsewhere sees the mutant too), assigns the module-level values,
and runs the module's fast test subset in-process with `pytest -x`. Exit 1 (or a timeout) = killed,
0 = survived. Module-level values imported by name into other modules keep the original value
(a limitation: such a mutant can survive falsely; none of the targets' tests rely on that).

Sampling: the targets form the issue's four groups (matching, parsers, scoring, bank_core); from each
group `--per-group` mutants (default 50, or all when the group has fewer) are drawn uniformly from the
group's pooled mutants with a fixed seed (`--seed`, default 0), so the same list every run and the
killed share estimates the group's. The report says how many were drawn from how many.

Checkpoint: every outcome is appended to `--checkpoint` (default out/mutation/checkpoint.jsonl) as it
arrives, with a hash of the mutated module's source and of its test subset. A rerun reuses a record
when the module's source is unchanged and either the mutant was killed or the tests are unchanged
too (tests are added to kill survivors; a survivor is rerun once its tests change). `--fresh` ignores
the checkpoint. A survivor listed as equivalent in
docs/testing.md (its id in the first column of the "Equivalent mutants" table) is counted as
equivalent, not survived. Mutant ids are a hash of (file, function, operator, source line, repeat),
so they survive line shifts elsewhere in the file.
"""

from __future__ import annotations

import argparse
import ast
import copy
import hashlib
import importlib
import itertools
import json
import os
import random
import re
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # conftest's `pytest_plugins = ["runner_fixtures"]`
DOCS = REPO / "docs" / "testing.md"

# target name -> (module, fast test subset). Tests are ordered cheapest-first: -x stops at the first failure.
T = "tests/"
EDGES_PROPS = [T + "test_protocol_edges.py", T + "test_protocol_properties.py"]
PROTOCOL = [T + "test_protocol_exp1.py", T + "test_protocol_exp3_exp9.py", *EDGES_PROPS]
SCORING = [T + "test_scoring_edges.py", T + "test_scoring_metrics.py"]
SCORING_CI = [T + "test_scoring_edges.py", T + "test_scoring_stats.py", T + "test_scoring_seeds.py", T + "test_scoring_metrics.py"]
TARGETS: dict[str, tuple[str, list[str]]] = {
    "matching": ("mirror_hf.protocol.matching", [T + "test_protocol_edges.py", T + "test_protocol_matching.py",
                                                 T + "test_protocol_properties.py"]),
    "parsing": ("mirror_hf.protocol.parsing", [T + "test_protocol_readings.py", *PROTOCOL]),
    "exp1": ("mirror_hf.protocol.exp1", [T + "test_protocol_exp1.py", *EDGES_PROPS]),
    "exp3": ("mirror_hf.protocol.exp3", [T + "test_protocol_exp3_exp9.py", *EDGES_PROPS]),
    "exp9": ("mirror_hf.protocol.exp9", [T + "test_protocol_exp9_decisions.py", T + "test_protocol_exp3_exp9.py", *EDGES_PROPS]),
    "bootstrap": ("mirror_hf.scoring._bootstrap", SCORING_CI),
    "stats": ("mirror_hf.scoring._stats", SCORING_CI),
    "accuracy": ("mirror_hf.scoring._accuracy", SCORING),
    "calibration": ("mirror_hf.scoring._calibration", SCORING),
    "cce": ("mirror_hf.scoring._cce", SCORING),
    "escalation": ("mirror_hf.scoring._escalation", SCORING_CI),
    "exp9_metrics": ("mirror_hf.scoring._exp9", [*SCORING, T + "test_scoring_exp9_extras.py"]),
    "mci": ("mirror_hf.scoring._mci", SCORING),
    "rank": ("mirror_hf.scoring._rank", SCORING),
    "tii": ("mirror_hf.scoring._tii", SCORING),
    "weak": ("mirror_hf.scoring._weak", SCORING),
    "bank_core": ("mirror_hf.bank._core", [T + "test_bank_core.py"]),
}
# Summary groups: the issue's targets are >= 90% killed for matching and scoring, >= 80% elsewhere.
GROUPS = {t: {"matching": "matching", "parsing": "parsers", "exp1": "parsers", "exp3": "parsers", "exp9": "parsers",
                "bank_core": "bank_core"}.get(t, "scoring") for t in TARGETS}
TARGET_SHARE = {"matching": 0.90, "scoring": 0.90, "parsers": 0.80, "bank_core": 0.80}

# The mutants issue 18 found surviving the suite, as text patches (label, module, old, new, tests):
# each must now be killed (`--issue-mutants`).
ISSUE_MUTANTS: list[tuple[str, str, str, str, list[str]]] = [
    ("sign ignored in numbers_match", "mirror_hf.protocol.matching", "    p, pd = pred\n    g, gd = gold\n",
     "    p, pd = abs(pred[0]), pred[1]\n    g, gd = abs(gold[0]), gold[1]\n", [T + "test_protocol_properties.py"]),
    ("U+2212 not read as minus", "mirror_hf.protocol.matching", '{"\\u2212": "-", ', "{", [T + "test_protocol_properties.py"]),
    ("bootstrap ignores its seed", "mirror_hf.scoring._bootstrap", "else np.random.default_rng(seed)",
     "else np.random.default_rng(DEFAULT_SEED)", [T + "test_scoring_seeds.py"]),
    ("score --seed ignored", "mirror_hf.cli.score_cmd", "Bootstrap(n_resamples=resamples, seed=seed)",
     "Bootstrap(n_resamples=resamples, seed=42)", [T + "test_scoring_seeds.py"]),
    ("Exp9: the last decision keyword wins", "mirror_hf.protocol.exp9", "return min(keywords)[1]", "return max(keywords)[1]",
     [T + "test_protocol_properties.py"]),
    ("factual: two historic names swapped", "mirror_hf.bank.factual",
     '    "CSHH": "Czechoslovakia",\n', '    "CSHH": "the German Democratic Republic",\n', [T + "test_bank_factual.py"]),
    ("task chains: cobalt and nickel swapped", "mirror_hf.tasks.elements", '("cobalt", "Co"), ("nickel", "Ni")',
     '("nickel", "Co"), ("cobalt", "Ni")', [T + "test_tasks_chain.py"]),
    ("task chains: a wrong participle in the form table", "mirror_hf.tasks.producers", '"fly": ("flew", "flown")',
     '"fly": ("flew", "flew")', [T + "test_tasks_chain.py"]),
    ("calculator without its power guard", "mirror_hf.protocol.calculator",
     '        if exponent * base.bit_length() > MAX_INT_BITS + 64:\n            raise CalculatorError("exponent too large")\n'
     '    elif abs(exponent) > 10_000:\n        raise CalculatorError("exponent too large")\n',
     "        pass\n", [T + "test_protocol_calculator.py"]),
]

_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
        ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_BIN = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div,
        ast.Mod: ast.Mult, ast.Pow: ast.Mult}
_BOOL = {ast.And: ast.Or, ast.Or: ast.And}


@dataclass(frozen=True)
class Mutant:
    id: str
    target: str
    qualname: str
    line: int
    op: str
    source: str  # the original source line, stripped


# ------------------------------------------------------------------------------------------------
# Finding mutation points
# ------------------------------------------------------------------------------------------------


def _docstring_nodes(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def _points(tree: ast.Module) -> list[tuple[tuple, str, str, int]]:
    """(path to the node, operator label, qualname, line) of every mutation point, in source order."""
    skip = _docstring_nodes(tree)
    points: list[tuple[tuple, str, str, int]] = []

    def visit(node: ast.AST, path: tuple, qual: str, in_function: bool, in_fstring: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            qual = f"{qual}.{node.name}" if qual else node.name
            # decorators, annotations and defaults are not walked: only the body is behaviour
            for i, child in enumerate(node.body):
                visit(child, (*path, ("body", i)), qual, in_function or not isinstance(node, ast.ClassDef), in_fstring)
            return
        if isinstance(node, (ast.AnnAssign,)) and not in_function:
            if node.value is not None:
                visit(node.value, (*path, ("value", None)), qual, in_function, in_fstring)
            return
        in_fstring = in_fstring or isinstance(node, ast.JoinedStr)  # message text, not behaviour
        line = getattr(node, "lineno", 0)
        active = in_function or _module_constant_context(path)
        if active and not in_fstring:
            if isinstance(node, ast.Compare):
                for k, op in enumerate(node.ops):
                    if type(op) in _CMP:
                        points.append(((*path, ("cmp", k)), f"{type(op).__name__}->{_CMP[type(op)].__name__}", qual, line))
            elif isinstance(node, ast.BinOp) and type(node.op) in _BIN:
                points.append(((*path, ("bin", None)), f"{type(node.op).__name__}->{_BIN[type(node.op)].__name__}", qual, line))
            elif isinstance(node, ast.BoolOp):
                points.append(((*path, ("bool", None)), f"{type(node.op).__name__}->{_BOOL[type(node.op)].__name__}", qual, line))
            elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
                points.append(((*path, ("unary", None)), f"drop {type(node.op).__name__}", qual, line))
            elif isinstance(node, ast.Constant) and id(node) not in skip:
                v = node.value
                if isinstance(v, bool):
                    points.append(((*path, ("const", None)), f"{v}->{not v}", qual, line))
                elif isinstance(v, int):
                    points.append(((*path, ("const", None)), f"{v}->{v + 1}", qual, line))
                elif isinstance(v, float):
                    points.append(((*path, ("const", None)), f"{v}->{v * 2 if v else 1.0}", qual, line))
            elif isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None
            ):
                points.append(((*path, ("return", None)), "return->None", qual, line))
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                for i, child in enumerate(value):
                    if isinstance(child, ast.AST):
                        visit(child, (*path, (field, i)), qual, in_function, in_fstring)
            elif isinstance(value, ast.AST):
                if field in ("annotation", "returns"):
                    continue
                visit(value, (*path, (field, None)), qual, in_function, in_fstring)

    for i, stmt in enumerate(tree.body):
        visit(stmt, (("body", i),), "", False, False)
    return points


def _module_constant_context(path: tuple) -> bool:
    """Module level: only the right-hand side of a plain `NAME = <number expression>` assignment."""
    return len(path) >= 2 and path[1][0] == "value"


def _resolve(tree: ast.AST, path: tuple) -> ast.AST:
    node = tree
    for field, index in path:
        node = getattr(node, field) if index is None else getattr(node, field)[index]
    return node


def _apply(tree: ast.Module, path: tuple) -> ast.Module:
    """A copy of `tree` with the mutation at `path` applied."""
    tree = copy.deepcopy(tree)
    *parent_path, (kind, k) = path
    node = _resolve(tree, tuple(parent_path))
    if kind == "cmp":
        node.ops[k] = _CMP[type(node.ops[k])]()
    elif kind == "bin":
        node.op = _BIN[type(node.op)]()
    elif kind == "bool":
        node.op = _BOOL[type(node.op)]()
    elif kind == "unary":
        _replace(tree, tuple(parent_path), node.operand)
    elif kind == "const":
        v = node.value
        node.value = (not v) if isinstance(v, bool) else (v + 1) if isinstance(v, int) else (v * 2 if v else 1.0)
    elif kind == "return":
        node.value = ast.Constant(None)
    return ast.fix_missing_locations(tree)


def _replace(tree: ast.AST, path: tuple, new: ast.AST) -> None:
    *parent_path, (field, index) = path
    parent = _resolve(tree, tuple(parent_path))
    if index is None:
        setattr(parent, field, new)
    else:
        getattr(parent, field)[index] = new


def mutants_of(target: str) -> tuple[list[Mutant], ast.Module, list[tuple]]:
    module, _ = TARGETS[target]
    path = REPO / (module.replace(".", "/") + ".py")
    source = path.read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    points = _points(tree)
    out, paths, seen = [], [], {}
    for node_path, op, qual, line in points:
        text = lines[line - 1].strip() if line else ""
        key = (module, qual or "<module>", op, text)
        seen[key] = seen.get(key, 0) + 1
        mid = hashlib.sha1(repr((*key, seen[key])).encode()).hexdigest()[:8]
        out.append(Mutant(mid, target, qual or "<module>", line, op, text))
        paths.append(node_path)
    return out, tree, paths


# ------------------------------------------------------------------------------------------------
# Running a mutant
# ------------------------------------------------------------------------------------------------


def _swap_code(orig, new) -> bool:
    orig = getattr(orig, "__wrapped__", orig)
    new = getattr(new, "__wrapped__", new)
    if not (hasattr(orig, "__code__") and hasattr(new, "__code__")):
        return False
    if orig.__code__.co_freevars != new.__code__.co_freevars:
        raise RuntimeError(f"cannot swap {orig.__qualname__}: closure differs")
    orig.__code__ = new.__code__
    orig.__defaults__ = new.__defaults__
    orig.__kwdefaults__ = new.__kwdefaults__
    return True


def install(module_name: str, tree: ast.Module) -> None:
    """Put the mutated module's behaviour into the already-imported module object."""
    module = sys.modules[module_name]
    namespace = {"__name__": module_name, "__file__": module.__file__, "__package__": module.__package__}
    exec(compile(tree, module.__file__, "exec"), namespace)  # noqa: S102  (our own source, mutated)
    for name, new in namespace.items():
        if name.startswith("__"):
            continue
        orig = module.__dict__.get(name)
        if orig is None:
            module.__dict__[name] = new
        elif isinstance(orig, type) and isinstance(new, type) and orig.__module__ == module_name:
            for attr, value in vars(new).items():
                target = vars(orig).get(attr)
                # the function itself; a static/class method's; a property's getter; a cached_property's
                picks = (lambda v: v, lambda v: getattr(v, "__func__", None), lambda v: getattr(v, "fget", None),
                         lambda v: getattr(v, "func", None))
                for pick in picks:
                    a, b = pick(target), pick(value)
                    if a is not None and b is not None and callable(a) and _swap_code(a, b):
                        break
        elif callable(orig) and getattr(getattr(orig, "__wrapped__", orig), "__module__", None) == module_name and hasattr(
            getattr(orig, "__wrapped__", orig), "__code__"
        ):
            _swap_code(orig, new)
            if hasattr(orig, "cache_clear"):
                orig.cache_clear()
        elif not callable(orig) and not isinstance(orig, type(sys)):
            module.__dict__[name] = new


def run_child(module_name: str, tree: ast.Module | None, tests: list[str], quiet: bool = True) -> int:
    import pytest

    if tree is not None:
        install(module_name, tree)
    if quiet:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
    args = [*tests, "-x", "-q", "-m", "not slow", "-p", "no:cacheprovider", "--no-header", "-o", "addopts=",
            "-W", "ignore", "--hypothesis-profile=mutation"]
    return int(pytest.main(args))


def fork_run(module_name: str, tree, tests, timeout: float) -> tuple[str, float]:
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            code = run_child(module_name, tree, tests)
        except BaseException:  # noqa: BLE001  a mutant that breaks import/exec is killed by construction
            code = 3
        os._exit(code)
    deadline = started + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "killed (timeout)", time.monotonic() - started
        time.sleep(0.02)
    elapsed = time.monotonic() - started
    if code == 0:
        return "survived", elapsed
    if code == 1:
        return "killed", elapsed
    return f"error (exit {code})", elapsed


def prewarm(tests: list[str]) -> None:
    """Import the libraries the tests import, in the parent, so every child starts warm. Test modules
    themselves are not imported (one computing data at import would freeze unmutated results)."""
    import conftest  # noqa: F401  sets the private HF_HOME before datasets is imported
    import pytest  # noqa: F401

    names = set()
    for t in tests:
        for node in ast.walk(ast.parse((REPO / t).read_text())):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
    for name in sorted(names):
        if name.split(".")[0] in ("tasks_oracles", "runner_fixtures", "fakes", "conftest"):
            continue
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def equivalent_ids() -> dict[str, str]:
    """Ids listed in docs/testing.md's "Equivalent mutants" table -> reason."""
    if not DOCS.exists():
        return {}
    text = DOCS.read_text()
    section = text.split("## Equivalent mutants", 1)[-1] if "## Equivalent mutants" in text else ""
    section = section.split("\n## ", 1)[0]
    out = {}
    for row in section.splitlines():
        m = re.match(r"^\|\s*`?([0-9a-f]{8})`?\s*\|.*\|\s*([^|]+?)\s*\|\s*$", row)
        if m:
            out[m.group(1)] = m.group(2)
    return out


CHECKPOINT = REPO / "out" / "mutation" / "checkpoint.jsonl"


def _digest(paths: list[Path]) -> str:
    h = hashlib.sha1()
    for p in paths:
        h.update(p.read_bytes() if p.exists() else b"")
    return h.hexdigest()[:12]


def fingerprints(target: str) -> tuple[str, str]:
    """(hash of the mutated module's source, hash of its test subset and the shared test helpers)."""
    module, tests = TARGETS[target]
    helpers = sorted((REPO / "tests").glob("conftest.py")) + [REPO / "tests" / "runner_fixtures.py"]
    return _digest([REPO / (module.replace(".", "/") + ".py")]), _digest([REPO / t for t in tests] + helpers)


def load_checkpoint(path: Path, prints: dict[str, tuple[str, str]]) -> dict[str, dict]:
    """Reusable records by mutant id: same module source, and killed or the same tests."""
    out: dict[str, dict] = {}
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by an interrupted run
        fp = prints.get(r.get("target"))
        if fp is None or r.get("source_hash") != fp[0] or r.get("outcome", "").startswith("error"):
            continue
        if r["outcome"].startswith("killed") or r.get("tests_hash") == fp[1]:
            out[r["id"]] = r
    return out


def draw(targets: list[str], per_group: int, seed: int) -> tuple[list, dict[str, int]]:
    """The seeded sample: `per_group` mutants drawn uniformly from each group's pooled mutants."""
    totals: dict[str, int] = {}
    pools: dict[str, list] = {}
    for target in targets:
        mutants, tree, paths = mutants_of(target)
        totals[target] = len(mutants)
        pools.setdefault(GROUPS[target], []).extend((m, target, tree, p) for m, p in zip(mutants, paths))
    plan = []
    for group, pool in pools.items():
        # a seeded random order, so the sample (and any prefix of it, if a run is cut) is uniform
        order = random.Random(f"{seed}|{group}").sample(range(len(pool)), len(pool))
        plan.append([pool[i] for i in (order[:per_group] if per_group else order)])
    # round-robin over the groups, so an interrupted run leaves every group sampled alike
    return [e for row in itertools.zip_longest(*plan) for e in row if e is not None], totals


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--module", action="append", choices=sorted(TARGETS), help="target(s) to mutate (default: all)")
    ap.add_argument("--per-group", type=int, default=50, help="mutants drawn per group (matching, parsers, scoring, bank_core); 0: all")
    ap.add_argument("--seed", type=int, default=0, help="sampling seed")
    ap.add_argument("--jobs", type=int, default=2, help="mutants run at once")
    ap.add_argument("--budget-minutes", type=float, default=0.0,
                    help="start no mutant after this (0: no limit; the rest: not run, resumed next time)")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--checkpoint", type=Path, default=CHECKPOINT, help="outcomes appended here; a rerun resumes from it")
    ap.add_argument("--fresh", action="store_true", help="ignore the checkpoint's records")
    ap.add_argument("--json", type=Path, help="write every mutant's outcome here")
    ap.add_argument("--ids", default="", help="comma-separated mutant ids to run (any target), instead of the sample")
    ap.add_argument("--issue-mutants", action="store_true", help="run only the mutants issue 18 found surviving")
    args = ap.parse_args()
    if args.issue_mutants:
        return run_issue_mutants(args.jobs)
    targets = args.module or list(TARGETS)
    os.chdir(REPO)
    wanted = {i for i in args.ids.split(",") if i}
    if wanted:
        plan, totals = draw(targets, 0, args.seed)
        plan = [e for e in plan if e[0].id in wanted]
    else:
        plan, totals = draw(targets, args.per_group, args.seed)
    if args.list:
        for m, *_ in plan:
            print(f"{m.id}  {m.target}:{m.line}  {m.qualname}  {m.op}  | {m.source}")
        print(f"{len(plan)} mutants drawn from {sum(totals.values())}: {totals}")
        return 0
    equivalent = equivalent_ids()
    prints = {t: fingerprints(t) for t in targets}
    done = {} if args.fresh else load_checkpoint(args.checkpoint, prints)
    results: dict[str, list[dict]] = {t: [] for t in targets}
    queue = []
    for entry in plan:
        m = entry[0]
        if m.id in done:
            results[m.target].append({**done[m.id], "outcome": _classify(done[m.id]["outcome"], m.id, equivalent)})
        else:
            queue.append(entry)
    print(f"{len(plan)} mutants drawn from {sum(totals.values())}; "
          f"{len(plan) - len(queue)} from the checkpoint, {len(queue)} to run", flush=True)
    started = time.monotonic()
    baselines: dict[str, tuple[list[str], float]] = {}
    baseline_file = args.checkpoint.with_name("baselines.json")
    passed = {} if args.fresh or not baseline_file.exists() else json.loads(baseline_file.read_text())
    baseline_file.parent.mkdir(parents=True, exist_ok=True)
    needed = sorted({e[1] for e in queue})
    if needed:
        prewarm(sorted({t for target in needed for t in TARGETS[target][1] if (REPO / t).exists()}))
    import concurrent.futures as cf  # threads only wait: each run is its own forked child

    to_measure: dict[tuple[str, ...], str] = {}  # one unmutated run per distinct test subset
    for target in needed:
        module_name, tests = TARGETS[target]
        importlib.import_module(module_name)
        tests = [t for t in tests if (REPO / t).exists()]
        if not tests:
            print(f"{target}: none of its test files exist", file=sys.stderr)
            return 2
        key = f"{target}|{prints[target][0]}|{prints[target][1]}"
        if key in passed:
            baselines[target] = (tests, passed[key])
        else:
            to_measure.setdefault(tuple(tests), target)
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        runs = dict(zip(to_measure, pool.map(lambda t: fork_run(TARGETS[t][0], None,
                                                                     [x for x in TARGETS[t][1] if (REPO / x).exists()], 900),
                                             to_measure.values())))
    for target in needed:
        if target in baselines:
            continue
        tests = [t for t in TARGETS[target][1] if (REPO / t).exists()]
        outcome, seconds = runs[tuple(tests)]
        if outcome != "survived":
            print(f"{target}: the unmutated test subset does not pass ({outcome}); fix that first", file=sys.stderr)
            return 2
        # the per-mutant timeout: generous, the machine is shared; a mutant that loops is killed by it
        passed[f"{target}|{prints[target][0]}|{prints[target][1]}"] = max(60.0, 5 * seconds)
        baselines[target] = (tests, max(60.0, 5 * seconds))
        print(f"baseline {target}: {seconds:.1f}s ({len(tests)} files)", flush=True)
    baseline_file.write_text(json.dumps(passed, indent=1) + "\n")
    def one(entry):
        m, target, tree, path = entry
        if args.budget_minutes and time.monotonic() - started > args.budget_minutes * 60:
            return m, ("not run", 0.0)
        tests, timeout = baselines[target]
        return m, fork_run(TARGETS[target][0], _apply(tree, path), tests, timeout)

    args.checkpoint.parent.mkdir(parents=True, exist_ok=True)
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool, args.checkpoint.open("a") as ckpt:
        for m, (outcome, seconds) in pool.map(one, queue):
            if outcome == "not run":
                results[m.target].append({**m.__dict__, "outcome": outcome, "seconds": 0.0})
                continue
            record = {**m.__dict__, "outcome": outcome, "seconds": round(seconds, 2),
                      "source_hash": prints[m.target][0], "tests_hash": prints[m.target][1]}
            ckpt.write(json.dumps(record) + "\n")
            ckpt.flush()
            outcome = _classify(outcome, m.id, equivalent)
            results[m.target].append({**record, "outcome": outcome})
            if outcome == "survived" or outcome.startswith("error"):
                print(f"  {outcome.upper():9s} {m.id} {m.target}:{m.line} {m.qualname} {m.op} | {m.source}", flush=True)
    elapsed = time.monotonic() - started
    print(summary(results, totals, elapsed))
    survivors = [r for res in results.values() for r in res if r["outcome"] == "survived"]
    for r in survivors:
        print(f"survived {r['id']} {r['target']}:{r['line']} {r['qualname']} {r['op']} | {r['source']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


def _classify(outcome: str, mid: str, equivalent: dict[str, str]) -> str:
    return "equivalent" if outcome == "survived" and mid in equivalent else outcome


def run_issue_mutants(jobs: int) -> int:
    os.chdir(REPO)
    prewarm(sorted({t for *_, tests in ISSUE_MUTANTS for t in tests}))
    import concurrent.futures as cf

    def one(entry):
        label, module_name, old, new, tests = entry
        module = importlib.import_module(module_name)
        source = Path(module.__file__).read_text()
        if source.count(old) != 1:
            return label, f"error (patch text found {source.count(old)} times)", 0.0
        return (label, *fork_run(module_name, ast.parse(source.replace(old, new)), tests, timeout=600))

    failures = 0
    with cf.ThreadPoolExecutor(max_workers=jobs) as pool:
        for label, outcome, seconds in pool.map(one, ISSUE_MUTANTS):
            print(f"{outcome:18s} {seconds:6.1f}s  {label}", flush=True)
            failures += not outcome.startswith("killed")
    print(f"{len(ISSUE_MUTANTS) - failures}/{len(ISSUE_MUTANTS)} of issue 18's surviving mutants are now killed")
    return 1 if failures else 0


def summary(results: dict[str, list[dict]], totals: dict[str, int], elapsed: float) -> str:
    """Markdown tables: per target, then per group (killed share = killed / (killed + survived))."""
    head = "| {} | drawn / all | killed (of which timeout) | survived | equivalent | errors | killed share |"
    rows = [head.format("target"), "|---|---|---|---|---|---|---|"]
    not_run = sum(r["outcome"] == "not run" for res in results.values() for r in res)
    results = {t: [r for r in res if r["outcome"] != "not run"] for t, res in results.items()}

    def counts(res):
        k = sum(r["outcome"].startswith("killed") for r in res)
        to = sum(r["outcome"] == "killed (timeout)" for r in res)
        s = sum(r["outcome"] == "survived" for r in res)
        e = sum(r["outcome"] == "equivalent" for r in res)
        err = sum(r["outcome"].startswith("error") for r in res)
        return k, to, s, e, err

    for target, res in results.items():
        k, to, s, e, err = counts(res)
        rows.append(f"| {target} | {len(res)} / {totals[target]} | {k} ({to}) | {s} | {e} | {err} | {k / max(1, k + s):.0%} |")
    rows += ["", head.format("group") + " target |", "|---|---|---|---|---|---|---|---|"]
    for g in dict.fromkeys(GROUPS[t] for t in results):
        res = [r for t, rs in results.items() if GROUPS[t] == g for r in rs]
        k, to, s, e, err = counts(res)
        total = sum(totals[t] for t in results if GROUPS[t] == g)
        rows.append(f"| {g} | {len(res)} / {total} | {k} ({to}) | {s} | {e} | {err} | {k / max(1, k + s):.0%} | >= {TARGET_SHARE[g]:.0%} |")
    rows.append(f"\n{sum(len(r) for r in results.values())} mutants, {elapsed / 60:.1f} min this run"
                + (f" ({not_run} drawn but not run: time budget; a rerun resumes)" if not_run else ""))
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
