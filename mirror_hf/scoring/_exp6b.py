"""Exp6b's scorer over its trial table: FDR (and the controls' false-positive rate) per protocol,
`fdr` from the RESPONSE_TYPE self-labels (the paper's table), `fdr_keyword` from the authors'
keyword heuristic when those trials are there. Failed requests (no response type) are excluded."""

from __future__ import annotations

import polars as pl

from mirror_hf.scoring._bootstrap import CI
from mirror_hf.scoring._ecosystem import fdr

KEYS = {"label": "fdr", "keyword": "fdr_keyword"}


def score_exp6b(frame: pl.DataFrame, *, ci: CI = True) -> dict:
    out = {}
    for protocol, key in KEYS.items():
        part = frame.filter(pl.col("channel") == protocol)
        if part.height:
            out[key] = fdr(part["is_flawed"], part["response_type"], ci=ci)
    return out
