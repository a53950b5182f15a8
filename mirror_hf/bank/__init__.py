"""The question bank: one generator module per domain (DESIGN.md, `mirror_hf/bank/`).

Each domain module defines `DOMAIN = Domain(name, version)` and registers five subcategory
generators with `@DOMAIN.subcategory(...)`. `generate_bank(seed)` draws the whole bank, balanced
over domains, subcategories and difficulties, and runs the quality gates.
"""

from __future__ import annotations

import importlib

from mirror_hf.bank._core import Domain, GateError, Item, check_bank, generate_domain, normalise_text
from mirror_hf.bank._leaks import check_leaks
from mirror_hf.records import DOMAINS, Question

__all__ = [
    "DEFAULT_PER_DOMAIN",
    "Domain",
    "GateError",
    "Item",
    "available_domains",
    "generate_bank",
    "load_domain",
    "normalise_text",
]

DEFAULT_PER_DOMAIN = 625


def load_domain(name: str) -> Domain:
    if name not in DOMAINS:
        raise KeyError(f"unknown domain {name!r}; known: {', '.join(DOMAINS)}")
    return importlib.import_module(f"mirror_hf.bank.{name}").DOMAIN


def available_domains() -> list[str]:
    """Domains whose generator module exists, in the paper's order."""
    out = []
    for name in DOMAINS:
        try:
            load_domain(name)
        except ModuleNotFoundError as exc:
            if exc.name != f"mirror_hf.bank.{name}":
                raise
            continue
        out.append(name)
    return out


def generate_bank(seed: int, per_domain: int = DEFAULT_PER_DOMAIN, domains: list[str] | None = None) -> list[Question]:
    """Every question of one parallel form: `per_domain` items per domain, gates applied."""
    questions: list[Question] = []
    for name in domains or available_domains():
        questions.extend(generate_domain(load_domain(name), seed, per_domain))
    check_bank(questions)
    check_leaks(questions)
    return questions
