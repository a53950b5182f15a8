"""The choice-only strategy table over several pooled forms, as text: a measuring tool that sits
above the bank (it generates forms), so it lives outside `_leaks`, which the bank itself imports."""

from __future__ import annotations

from collections.abc import Sequence

from mirror_hf.bank import DEFAULT_PER_DOMAIN, available_domains, load_domain
from mirror_hf.bank._core import generate_domain
from mirror_hf.bank._leaks import POOLED_BOUND, best_strategies


def pooled_report(seeds: Sequence[int] = tuple(range(8)), per_domain: int | None = None) -> str:
    """The per-subcategory best-strategy table over the forms of `seeds` pooled (eight at the
    default size by default), as text: `python -c "from mirror_hf.bank._pooled import pooled_report;
    print(pooled_report())"` measures a repair before and after."""
    size = per_domain or DEFAULT_PER_DOMAIN
    questions = [q for seed in seeds for name in available_domains() for q in generate_domain(load_domain(name), seed, size)]
    lines = [f"{'subcategory':42s} {'n':>5s} {'best strategy':22s} rate"]
    lines += [
        f"{r.subcategory:42s} {r.n:5d} {r.strategy:22s} {r.accuracy:.3f}" + (" *" if r.accuracy > POOLED_BOUND else "")
        for r in best_strategies(questions)
    ]
    return "\n".join(lines)
