"""The one place the report reads numbers: every value in the tables, figures and narrative comes
from the dict this module returns, and that dict comes from `mirror_hf.scoring` (today
`mirror_hf.experiments.score_folder`, exactly what `mirror-hf score` computes)."""

from __future__ import annotations

from mirror_hf.scoring import ModelView, SuiteOptions, weak_domains


def scores(tables: dict, options: SuiteOptions, model_table=None) -> dict:
    """The `mirror-hf score` result for the folder's trial tables (same JSON shape as `score --json`;
    with `model_table`, Exp8's scaling fits as `score --models` gives them)."""
    from mirror_hf.experiments import score_folder

    return score_folder(tables, options, model_table=model_table)


def weak_set(model: ModelView, options: SuiteOptions) -> frozenset[str]:
    """The model's weak domains under the scoring options' policy (paper default median_or_bottom_k),
    from its Exp1 natural accuracy per domain as scored."""
    by_domain = (model.exp1.natural_accuracy_by_domain if model.exp1 is not None else None) or {}
    profile = {d: e.value for d, e in by_domain.items()}
    return weak_domains(profile, policy=options.exp9_policy or "median_or_bottom_k") if profile else frozenset()


def parameters(model_table: list, result: dict) -> dict[str, tuple[str, float]]:
    """model (as scored) -> (family, parameter count) from the model table, matched to the scored
    names by the rule `score --models` uses (`model_table.align`)."""
    from mirror_hf.model_table import align

    return {m.model: (m.family, m.parameters) for m in align(model_table, result.get("models", {}))}
