"""De-duplication of re-run records: of several records for one key the last written wins, as in
the authors' analysis scripts. The key is the experiment's own (`Experiment.dedup_key`); there is no
default, because `item_id` alone would silently collapse an experiment's channels."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from mirror_hf.scoring._columns import unique_rows


def latest_records(frame: pl.DataFrame, key: Sequence[str]) -> pl.DataFrame:
    """One record per (model, *key), the last written winning. An empty key is an error."""
    if not key:
        raise ValueError("latest_records needs the experiment's de-duplication key (Experiment.dedup_key)")
    keys = [k for k in ("model", *key) if k in frame.columns]
    return unique_rows(frame, keys, keep="last")
