"""Mirror as Inspect tasks (optional extra `mirror-hf[inspect]`).

`inspect eval mirror_hf/exp1 --model openai-api/<provider>/<model>` runs Mirror with Inspect's
providers, log viewer and job runner. Nothing here is a second copy of the protocol: each task's
samples are the jobs of the runner's own plan (`mirror_hf.runner.plan.build_plan`: the same banks,
item selection, prompt builders), the solver sends those messages and any follow-up turn the
experiment's recipe asks for, and the scorer is the recipe's parser, matcher and grader. Exp9's C4
goes through `exp9_routing`, which records the routing rule's decision for each sample before the
grade applies it. `mirror-hf import-inspect LOG... --dataset DIR` rebuilds the same plan from a
log's task arguments and writes the trial split through the runner's record builder, so imported
trials are scored exactly as `mirror-hf run` scores them.

Task arguments (all optional, `-T name=value`): dataset (a built folder; default the installed
build), limit, channels / conditions / paradigms (comma-separated), matcher (strict / upstream),
split (the model's split name: Exp9 C2-C4 read its profile), route_rule, temperature, seed,
max_tokens.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
)
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, TaskState, solver

TURNS_KEY = "mirror_turns"  # the sample store entry holding each turn's outcome (read by import-inspect)
_FINISH = {"max_tokens": "length", "model_length": "length", "tool_calls": "tool_calls", "content_filter": "content_filter"}


def _tuple(value) -> tuple[str, ...] | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    return tuple(value)


@lru_cache(maxsize=16)
def plan_for(experiment: str, dataset: str | None, limit: int | None, channels, conditions, paradigms,
             matcher: str, split: str, route_rule: str):
    """The runner's plan for these task arguments (cached: the task, solver and scorer share it)."""
    from mirror_hf import dataset_dir
    from mirror_hf.experiments import get
    from mirror_hf.runner.plan import PlanOptions, build_plan

    root = Path(dataset).absolute() if dataset else dataset_dir()
    internal = [c for c in channels or () if c in ("consistency", "logprob")]
    if internal:  # they need n samples / token log-probabilities, which the Inspect solver does not ask for
        raise ValueError(f"channel(s) {', '.join(internal)} run with `mirror-hf run`, not as Inspect tasks")
    options = PlanOptions(limit=limit, channels=channels, conditions=conditions,
                          paradigms=paradigms, matcher=matcher, split=split, route_rule=route_rule)
    return build_plan(root, options, get(experiment))


def plan_args(experiment: str, args: dict) -> tuple:
    """plan_for's arguments from a task's arguments (as Inspect logs them)."""
    limit = args.get("limit")
    return (experiment, args.get("dataset"), int(limit) if limit not in (None, "") else None, _tuple(args.get("channels")),
            _tuple(args.get("conditions")), _tuple(args.get("paradigms")), args.get("matcher") or "strict",
            args.get("split") or "", args.get("route_rule") or "weak_set")


def _chat(messages: list[dict]) -> list:
    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    return [kinds[m["role"]](content=m["content"]) for m in messages]


def outcome_of(turn: dict):
    """A turn recorded by `mirror_solve` as the runner's Outcome."""
    from mirror_hf.runner.request import Outcome

    return Outcome(text=turn.get("text"), reasoning=turn.get("reasoning"), finish_reason=turn.get("finish_reason"),
                   prompt_tokens=turn.get("prompt_tokens"), completion_tokens=turn.get("completion_tokens"),
                   attempts=1, error=turn.get("error"), error_kind="permanent" if turn.get("error") else None)


def _turn(output, messages: list[dict]) -> dict:
    message = output.message if output.choices else None
    reasoning = None
    if message is not None and not isinstance(message.content, str):
        parts = [getattr(p, "reasoning", None) for p in message.content if getattr(p, "type", None) == "reasoning"]
        reasoning = "\n".join(p for p in parts if p) or None
    usage = output.usage
    return {
        "messages": messages,
        "text": output.completion if output.choices else None,
        "reasoning": reasoning,
        "finish_reason": _FINISH.get(output.stop_reason, "stop") if output.choices else None,
        "prompt_tokens": usage.input_tokens if usage else None,
        "completion_tokens": usage.output_tokens if usage else None,
        "error": output.error if getattr(output, "error", None) else None,
    }


@solver
def mirror_solve(experiment: str, args: dict):
    """Send the job's messages, then the follow-up turn the recipe asks for (tool delegation), and
    record every turn's outcome in the sample store."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        plan = plan_for(*plan_args(experiment, args))
        job = plan.jobs[state.metadata["job"]]
        messages = list(job.messages)
        state.messages = _chat(messages)
        state = await generate(state)
        turns = [_turn(state.output, messages)]
        follow = plan.recipe.followup(job, outcome_of(turns[0])) if not turns[0]["error"] else None
        if follow is not None:
            state.messages = _chat(follow)
            state = await generate(state)
            turns.append(_turn(state.output, list(follow)))
        state.store.set(TURNS_KEY, turns)
        return state

    return solve


@solver
def exp9_routing(args: dict):
    """C4 (external routing): record which components the routing rule sends to the resolver, so the
    log shows the decision the grade applies (`exp9.routed_slots` with the task's route rule)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if state.metadata.get("condition") == "C4":
            from mirror_hf.protocol import exp9

            plan = plan_for(*plan_args("exp9", args))
            job = plan.jobs[state.metadata["job"]]
            task_row, profile = job.context
            routed = exp9.routed_slots(task_row, plan.recipe.route_rule, profile)
            state.store.set("mirror_routed_slots", sorted(routed) if routed else [])
        return state

    return solve


@scorer(metrics=[mean()])
def mirror_grade(experiment: str, args: dict):
    """The recipe's parse and grade of the recorded turns: value 1/0 for correct/incorrect, NaN-free
    0 with `graded=False` in the metadata when the trial is ungraded (as the runner leaves it null)."""

    async def score(state: TaskState, target: Target) -> Score:
        plan = plan_for(*plan_args(experiment, args))
        fields = grade_turns(plan, state.metadata["job"], state.store.get(TURNS_KEY) or [])
        correct = fields.get("correct")
        return Score(value=1.0 if correct else 0.0, answer=str(fields.get("answer")) if fields.get("answer") is not None else None,
                     metadata={"graded": correct is not None, **{k: v for k, v in fields.items() if _plain(v)}})

    return score


def _plain(value) -> bool:
    return value is None or isinstance(value, (str, int, float, bool)) or (
        isinstance(value, list) and all(isinstance(v, (str, int, float, bool)) or v is None for v in value))


def grade_turns(plan, index: int, turns: list[dict]) -> dict:
    """The recipe's parsed and graded fields for one job from recorded turns."""
    from mirror_hf.runner.request import ChatRequest, Generation

    job = plan.jobs[index]
    pairs = [(ChatRequest("inspect", "inspect", tuple(t["messages"]), Generation()), outcome_of(t)) for t in turns]
    error = next((t["error"] for t in turns if t.get("error")), None)
    return plan.recipe.parsed_fields(job, pairs, error)


def _task(experiment: str, args: dict, extra_solvers: tuple = ()) -> Task:
    plan = plan_for(*plan_args(experiment, args))
    samples = [
        Sample(input=_chat(job.messages), target=_target(job), id=f"{i:06d}",
               metadata={"job": i, "item_id": job.item_id, **{k: v for k, v in job.fields.items() if _plain(v)}})
        for i, job in enumerate(plan.jobs)
    ]
    config = GenerateConfig(temperature=float(args.get("temperature", 0.0)),
                            seed=None if args.get("seed") in (None, "") else int(args["seed"]),
                            max_tokens=int(args["max_tokens"]) if args.get("max_tokens") else plan.recipe.default_max_tokens)
    return Task(dataset=MemoryDataset(samples, name=f"mirror_{experiment}"),
                solver=[*extra_solvers, mirror_solve(experiment, args)], scorer=mirror_grade(experiment, args),
                config=config, metadata={"mirror_experiment": experiment, "mirror_args": args})


def _target(job) -> str:
    context = job.context
    if isinstance(context, tuple) and context and hasattr(context[0], "answer"):
        return str(context[0].answer)
    if isinstance(context, tuple) and context and isinstance(context[0], dict):
        return str(context[0].get("correct_answer_a") or context[0].get("answer") or "")
    return ""


def _args(**kw) -> dict:
    return {k: v for k, v in kw.items() if v is not None}


@task
def exp1(dataset: str | None = None, limit: int | None = None, channels: str | None = None, matcher: str = "strict",
         temperature: float = 0.0, seed: int | None = 0, max_tokens: int | None = None) -> Task:
    """Exp1: every behavioural channel (or --channels) on the question bank."""
    return _task("exp1", _args(dataset=dataset, limit=limit, channels=channels, matcher=matcher, temperature=temperature,
                               seed=seed, max_tokens=max_tokens))


@task
def exp1_natural(dataset: str | None = None, limit: int | None = None, matcher: str = "strict", temperature: float = 0.0,
                 seed: int | None = 0, max_tokens: int | None = None) -> Task:
    """Exp1, natural channel only (natural accuracy)."""
    return exp1(dataset, limit, "natural", matcher, temperature, seed, max_tokens)


@task
def exp1_wagering(dataset: str | None = None, limit: int | None = None, matcher: str = "strict", temperature: float = 0.0,
                  seed: int | None = 0, max_tokens: int | None = None) -> Task:
    """Exp1, wagering channel only (wagering accuracy)."""
    return exp1(dataset, limit, "wagering", matcher, temperature, seed, max_tokens)


@task
def exp3(dataset: str | None = None, limit: int | None = None, channels: str | None = None, matcher: str = "strict",
         temperature: float = 0.0, seed: int | None = 0, max_tokens: int | None = None) -> Task:
    """Exp3: composite tasks and their components (self-prediction and answer channels)."""
    return _task("exp3", _args(dataset=dataset, limit=limit, channels=channels, matcher=matcher, temperature=temperature,
                               seed=seed, max_tokens=max_tokens))


@task
def exp9(dataset: str | None = None, limit: int | None = None, conditions: str | None = None, paradigms: str | None = None,
         split: str | None = None, matcher: str = "strict", route_rule: str = "weak_set", temperature: float = 0.0,
         seed: int | None = 0, max_tokens: int | None = None) -> Task:
    """Exp9: the knowing-doing tasks under C1-C4 x P1-P3 (C2-C4 need the model's profile: pass split=)."""
    args = _args(dataset=dataset, limit=limit, conditions=conditions, paradigms=paradigms, split=split, matcher=matcher,
                 route_rule=route_rule, temperature=temperature, seed=seed, max_tokens=max_tokens)
    return _task("exp9", args, extra_solvers=(exp9_routing(args),))
