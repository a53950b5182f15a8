"""The study's plan: per experiment the requests still to send, the estimated prompt and completion
tokens, and (with prices, rates) the cost and the expected time — before anything is sent.

Nothing here counts requests itself: each experiment is planned by the runner's own planner
(`runner.plan.build_plan`, with the options the step will run with: `session.plan_options`) and
estimated by the runner's own dry run (`session.estimate`: identical requests counted once, those
already in the run's results file not at all). Exp5 and Exp9 read the model's Exp1 profile, and
Exp9 its tailored tasks, which do not exist before Exp1 has run; they are planned on a scratch
folder (symlinks to the data, plus a stand-in profile and stand-in tailored tasks written there by
the same functions the study writes the real ones with). Their request counts do not depend on
the profile's values (the same number of tasks, cells, items and attacks), only a few prompt
tokens do.

Token figures: prompt tokens are the runner's 4-characters-a-token estimate; replies are unknown
before they come, so `completion_tokens` is `calls x reply_tokens` (default: each experiment's
max_tokens, an upper bound) and later turns that replay a reply (Exp4, Exp6a) count it at that
length; `completion_tokens_max` is always the bound, and the cost cap is checked against it.
"""

from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from mirror_hf.errors import MirrorValueError


class StudyPlanError(MirrorValueError):
    """The study cannot be planned (one line: which experiment and why)."""


@dataclass
class ExperimentPlan:
    experiment: str
    trials: int
    requests: int  # still to send, follow-up turns every trial sends included
    already_done: int
    prompt_tokens: int
    completion_tokens: int
    completion_tokens_max: int
    tool_followups_max: int  # extra calls only when the model calls the calculator (not in `requests`)
    cost: float | None = None
    cost_max: float | None = None
    seconds: float | None = None
    stand_in: bool = False  # planned on the stand-in profile / tailored tasks

    def json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "experiment"}


@dataclass
class ModelPlan:
    model: str
    split: str
    experiments: dict[str, ExperimentPlan] = field(default_factory=dict)

    @property
    def total(self) -> dict:
        rows = list(self.experiments.values())
        out = {name: sum(getattr(r, name) for r in rows) for name in (
            "trials", "requests", "already_done", "prompt_tokens", "completion_tokens", "completion_tokens_max",
            "tool_followups_max")}
        for name in ("cost", "cost_max", "seconds"):
            values = [getattr(r, name) for r in rows]
            out[name] = None if any(v is None for v in values) or not values else sum(values)
        return out

    def json(self) -> dict:
        return {"model": self.model, "split": self.split,
                "experiments": {name: p.json() for name, p in self.experiments.items()}, "total": self.total}


def seconds_for(requests: int, tokens: int, rpm: float | None, tpm: float | None) -> float | None:
    """The least time the budgets allow (None without a budget)."""
    if rpm is None and tpm is None:
        return None
    return max(requests / rpm * 60 if rpm else 0.0, tokens / tpm * 60 if tpm else 0.0)


def plan_experiment(root: Path, options, split: str, model: str, *, reply_tokens: int | None = None,
                    done_root: Path | None = None, stand_in: bool = False) -> ExperimentPlan:
    """One step's plan on folder `root` (the real one, or the scratch folder), with the requests
    already recorded in `done_root`'s results file (the real folder) left out."""
    from mirror_hf.runner.plan import PlanError, build_plan
    from mirror_hf.runner.request import Generation
    from mirror_hf.runner.session import EMBEDDED_KEY_URL, _generation, _paths, estimate, plan_options, public_url
    from mirror_hf.runner.store import load_outcomes

    try:
        plan = build_plan(root, plan_options(options, split), options.experiment)
    except PlanError as exc:
        raise StudyPlanError(f"{options.experiment.name}: {exc}") from None
    generation = _generation(options, plan)
    key_url = EMBEDDED_KEY_URL if options.base_url is None else public_url(options.base_url)
    results = _paths(done_root or root, split, plan.experiment).results
    done = {k for k, o in load_outcomes(results)[0].items() if o.ok}
    bound = estimate(plan, generation, model, key_url, options, done)
    expected = bound
    if reply_tokens is not None and reply_tokens < generation.max_tokens:
        # the runner's estimate if every reply were reply_tokens long (replayed replies included);
        # the requests' keys change with max_tokens, so what is done is scaled in, not looked up
        fresh = estimate(plan, Generation(generation.temperature, generation.seed, reply_tokens, generation.extra),
                         model, key_url, options, set())
        share = (bound.requests + bound.planned_followups) / max(1, fresh.requests + fresh.planned_followups)
        expected = replace(fresh, prompt_tokens=round(fresh.prompt_tokens * share),
                           max_completion_tokens=round(fresh.max_completion_tokens * share))
    requests = bound.requests + bound.planned_followups
    price_in, price_out = options.price_in, options.price_out
    priced = price_in is not None or price_out is not None

    def cost(prompt: int, completion: int) -> float | None:
        return (prompt * (price_in or 0) + completion * (price_out or 0)) / 1e6 if priced else None

    return ExperimentPlan(
        experiment=plan.experiment, trials=bound.trials, requests=requests, already_done=bound.already_done,
        prompt_tokens=expected.prompt_tokens, completion_tokens=expected.max_completion_tokens,
        completion_tokens_max=bound.max_completion_tokens, tool_followups_max=bound.tool_followups_possible,
        cost=cost(expected.prompt_tokens, expected.max_completion_tokens),
        cost_max=cost(bound.prompt_tokens, bound.max_completion_tokens),
        seconds=seconds_for(requests, expected.prompt_tokens + expected.max_completion_tokens, options.rpm, options.tpm),
        stand_in=stand_in,
    )


# The stand-in profile is drawn in four rotations of the domains (each domain weak in one, strong in
# another): which domains a model will find weak is unknown before its Exp1, and their items differ
# in length (a protocol table against a sum), so a plan on one rotation only would guess the prompt
# tokens of Exp5 and Exp9 from two arbitrary domains; their mean over the rotations is the estimate.
STAND_IN_ROTATIONS = (0, 2, 4, 6)


def stand_in_accuracies(rotation: int = 0) -> dict[str, float]:
    """A stand-in Exp1 profile: natural accuracies spread over [0.2, 0.9] in the paper's domain
    order shifted by `rotation`, so every weak-domain policy finds a strong and a weak domain."""
    from mirror_hf.records import DOMAINS

    n = len(DOMAINS)
    return {d: round(0.9 - 0.7 * ((i + rotation) % n) / (n - 1), 4) for i, d in enumerate(DOMAINS)}


def mean_plan(plans: list[ExperimentPlan]) -> ExperimentPlan:
    """One experiment's plans on the stand-in rotations as one: the counts are the same in each (they
    do not depend on the profile), the token, cost and time figures their mean."""
    first = plans[0]

    def mean(values: list) -> float | None:
        return None if values[0] is None else sum(values) / len(values)

    tokens = {name: round(mean([getattr(p, name) for p in plans]))
              for name in ("prompt_tokens", "completion_tokens", "completion_tokens_max")}
    figures = {name: mean([getattr(p, name) for p in plans]) for name in ("cost", "cost_max", "seconds")}
    return replace(first, **tokens, **figures)


@contextmanager
def scratch_folder(root: Path, split: str, *, profile: bool, tailored: int | None, tailor_step=None, rotation: int = 0):
    """A folder seeing `root`'s data through symlinks, where the model's split of `profiles` (and of
    `exp9_tailored`, with `tailored` tasks) is a stand-in, written with `runner.profile.write_profile`
    and `tailor_step(folder)` (the study's own tailoring step): the folder Exp5 and Exp9 are
    planned on before the model's Exp1 exists."""
    from mirror_hf.folder import BUILD_MARKER
    from mirror_hf.runner.profile import write_profile
    from mirror_hf.scoring import classify_domains

    own = {"profiles", "exp9_tailored"}  # configs with a split of the model: its file is copied or stood in for
    replaced = {"profiles"} if profile else set()
    if tailored:
        replaced.add("exp9_tailored")
    scratch = Path(tempfile.mkdtemp(prefix="mirror-study-plan-"))
    try:
        (scratch / "data").mkdir()
        for marker in (BUILD_MARKER, "README.md"):  # copies: nothing written in the scratch may reach the folder
            if (root / marker).is_file():
                shutil.copyfile(root / marker, scratch / marker)
        for config in sorted(p for p in (root / "data").iterdir() if p.is_dir()):
            if config.name not in own:
                (scratch / "data" / config.name).symlink_to(config)
                continue
            (scratch / "data" / config.name).mkdir()
            for f in config.glob("*.parquet"):
                if not f.name.startswith(f"{split}-"):
                    (scratch / "data" / config.name / f.name).symlink_to(f)
                elif config.name not in replaced:  # a copy: a reader names it relative to the scratch folder
                    shutil.copyfile(f, scratch / "data" / config.name / f.name)
        if profile:
            accuracy = stand_in_accuracies(rotation)
            strength = classify_domains(accuracy)
            write_profile(scratch, split, [
                {"model": "stand-in", "domain": d, "natural_accuracy": a, "wagering_accuracy": a, "mirror_gap": 0.0,
                 "n_natural": 0, "n_wagering": 0, "strength": strength.get(d, "unknown"),
                 "weak_policy": "median_or_bottom_k", "run_id": "stand-in"} for d, a in accuracy.items()])
        if tailored and tailor_step is not None:
            tailor_step(scratch)
        yield scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def format_plan(plans: list[ModelPlan]) -> list[str]:
    """The plan as lines for the terminal."""
    lines = []
    for mp in plans:
        lines.append(f"plan for {mp.model} (split {mp.split}):")
        lines.append(f"  {'experiment':<11}{'requests':>10}{'done':>8}{'prompt tok':>13}{'compl. tok':>13}"
                     f"{'compl. max':>13}{'cost $':>10}{'time':>10}")
        for p in [*mp.experiments.values(), None]:
            row = mp.total if p is None else p.json()
            name = "total" if p is None else p.experiment + ("*" if p.stand_in else "")
            lines.append(f"  {name:<11}{row['requests']:>10,}{row['already_done']:>8,}{row['prompt_tokens']:>13,}"
                         f"{row['completion_tokens']:>13,}{row['completion_tokens_max']:>13,}"
                         f"{_money(row['cost']):>10}{_duration(row['seconds']):>10}")
        if any(p.stand_in for p in mp.experiments.values()):
            lines.append("  * planned on a stand-in profile (the model's Exp1 has not run yet): the request count is "
                         "exact, the prompt tokens close")
        extra = mp.total["tool_followups_max"]
        if extra:
            lines.append(f"  plus up to {extra:,} calculator follow-ups (only when the model calls the tool)")
    return lines


def _money(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}"


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    minutes, s = divmod(int(round(seconds)), 60)
    h, m = divmod(minutes, 60)
    return f"{h}:{m:02d}:{s:02d}"
