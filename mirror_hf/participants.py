"""Who answered a trial split: a model (the default), a human participant (`mirror-hf import-human`)
or a participant the authors simulated with a model (their `audit/human_baseline_packet` cohort,
`collection_mode: ai_simulated_human_roleplay`). Data only: the vocabulary the importers write into
`run_id` and the run manifest, and that `score`, `report` and the card read back."""

from __future__ import annotations

from collections.abc import Iterable

HUMAN = "human"
SIMULATED = "ai_simulated_human"
KINDS: tuple[str, ...] = (HUMAN, SIMULATED)

#: the `run_id` prefix of each kind's trials (a model's run id never starts with one)
RUN_PREFIX = {HUMAN: "human:", SIMULATED: "simulated-human:"}

#: what a row of the report, the card and `score` calls each kind
LABEL = {HUMAN: "human", SIMULATED: "AI-simulated, not human"}

#: the row of the mean over participants of each kind
MEAN_ROW = {HUMAN: "humans (mean)", SIMULATED: "AI-simulated humans (mean)"}

#: the one sentence that goes wherever the authors' simulated cohort appears
SIMULATED_WARNING = ("AI-simulated by the authors (their packet says collection_mode: ai_simulated_human_roleplay; "
                     "rows carry notes: ai_simulated_human): these are not human data")


def kind_of_run(run_id: str | None) -> str | None:
    """The participant kind of one trial's `run_id`, None for a model's."""
    for kind, prefix in RUN_PREFIX.items():
        if run_id and run_id.startswith(prefix):
            return kind
    return None


def kind_of_runs(run_ids: Iterable[str | None]) -> str | None:
    """The kind of a split from its trials' run ids (a split holds one participant, or one model)."""
    kinds = {kind_of_run(r) for r in run_ids}
    return next((k for k in KINDS if k in kinds), None)


def display(name: str, kind: str | None) -> str:
    """A row's label: the model or participant name, with the kind for participants."""
    return f"{name} ({LABEL[kind]})" if kind in LABEL else name
