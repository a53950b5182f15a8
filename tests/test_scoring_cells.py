"""`Cells.of` (the compression every bootstrap starts from) counts small-integer and 0/1/NaN columns
instead of sorting them; over every column kind the scorers pass, the cells, their order, counts,
first-item representatives and item -> cell map must be exactly what the plain `np.unique`
construction gives (cell order fixes the multinomial draws, so it fixes every CI)."""

from __future__ import annotations

import numpy as np

from mirror_hf.scoring._bootstrap import Cells


def _by_sorting(**columns: np.ndarray):
    """Distinct rows by sorting alone: lexicographic in each column's np.unique order, first item each."""
    arrays = list(columns.values())
    key = np.zeros(len(arrays[0]), dtype=np.int64)
    for a in arrays:
        _, inverse = np.unique(a, return_inverse=True, equal_nan=True)
        _, key = np.unique(key * (int(inverse.max()) + 1) + inverse.reshape(-1), return_inverse=True)
        key = key.reshape(-1)
    _, first, inverse, counts = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
    return {name: a[first] for name, a in columns.items()}, counts, inverse.reshape(-1)


def _kinds(rng: np.random.Generator):
    return {
        "outcome": lambda n: (rng.random(n) < 0.4).astype(np.float64),
        "outcome_nan": lambda n: np.where(rng.random(n) < 0.1, np.nan, (rng.random(n) < 0.5).astype(np.float64)),
        "signed_codes": lambda n: rng.integers(-1, 7, n),
        "bool": lambda n: rng.random(n) < 0.5,
        "tenths": lambda n: np.round(rng.random(n) * 10) / 10,
        "wide_ints": lambda n: rng.integers(0, 10**12, n),
        "small_floats_nan": lambda n: np.where(rng.random(n) < 0.2, np.nan, rng.integers(0, 4, n).astype(np.float64)),
        "signed_zero": lambda n: np.where(rng.random(n) < 0.5, -0.0, 0.0),
        "text": lambda n: np.array(["a", "b", "c"])[rng.integers(0, 3, n)],
        "constant": lambda n: np.ones(n),
    }


def test_cells_equal_the_sorting_construction_over_every_column_kind_and_mix():
    rng = np.random.default_rng(0)
    kinds = _kinds(rng)
    names = list(kinds)
    for trial in range(1500):
        n = int(rng.integers(1, 400))
        picked = [names[int(i)] for i in rng.integers(0, len(names), int(rng.integers(1, 6)))]
        columns = {f"c{j}_{kind}": kinds[kind](n) for j, kind in enumerate(picked)}
        got = Cells.of(**columns)
        values, counts, inverse = _by_sorting(**columns)
        assert np.array_equal(got.counts, counts), (trial, picked)
        assert np.array_equal(got.item_cell, inverse), (trial, picked)
        for name, expected in values.items():
            assert got[name].dtype == expected.dtype
            if expected.dtype.kind == "f":
                assert np.array_equal(got[name], expected, equal_nan=True), (trial, name)
                assert np.array_equal(np.signbit(got[name]), np.signbit(expected)), (trial, name)  # -0.0 kept as first seen
            else:
                assert np.array_equal(got[name], expected), (trial, name)


def test_every_kind_alone_and_many_columns_at_once():
    rng = np.random.default_rng(1)
    kinds = _kinds(rng)
    for kind, make in kinds.items():
        for n in (1, 2, 5, 1000):
            x = make(n)
            got, (_, counts, inverse) = Cells.of(x=x), _by_sorting(x=x)
            assert np.array_equal(got.counts, counts) and np.array_equal(got.item_cell, inverse), (kind, n)
    # twelve wide columns: the mixed-radix key has to be re-densified on the way
    columns = {f"c{j}": rng.integers(0, 10**12, 3000) for j in range(12)}
    got, (_, counts, inverse) = Cells.of(**columns), _by_sorting(**columns)
    assert got.k == 3000 and np.array_equal(got.item_cell, inverse) and np.array_equal(got.counts, counts)


def _wide_by_dicts(items, channels, signal):
    """MCI's question x channel table the plain way: the last valid record per (question, channel)
    wins; questions in order of first appearance among those winning records; channels sorted."""
    last = {}
    for i, (q, c, s) in enumerate(zip(items, channels, signal)):
        if q is not None and c is not None and not np.isnan(s):
            last[(q, c)] = (i, s)
    order = [q for _, (q, _c) in sorted((i, key) for key, (i, _s) in last.items())]
    questions = list(dict.fromkeys(order))
    names = sorted({c for _, c in last})
    return names, {c: np.array([last[(q, c)][1] if (q, c) in last else np.nan for q in questions]) for c in names}


def test_mci_wide_table_equals_the_record_by_record_reading():
    from mirror_hf.scoring._mci import _wide

    rng = np.random.default_rng(2)
    for trial in range(300):
        n = int(rng.integers(0, 300))
        items = [None if rng.random() < 0.05 else f"q{int(x)}" for x in rng.integers(0, max(1, n // 3), n)]
        channels = [None if rng.random() < 0.03 else ["wagering", "natural", "opt_out", "zz", "Ab"][int(x)] for x in rng.integers(0, 5, n)]
        signal = np.where(rng.random(n) < 0.1, np.nan, np.round(rng.random(n), 1))
        got, expected = _wide(items, channels, signal), _wide_by_dicts(items, channels, signal)
        assert got[0] == expected[0], trial
        for c in expected[0]:
            assert np.array_equal(got[1][c], expected[1][c], equal_nan=True), (trial, c)


def test_by_model_slices_match_partition_by_contiguous_or_interleaved():
    """`_by_model` slices contiguous models without copying; every ordering (contiguous, interleaved,
    with null models, with open-format trials) gives partition_by's frames, row for row."""
    import polars as pl

    from mirror_hf.scoring._tables import OPEN_SUFFIX
    from mirror_hf.scoring._tables import by_model as _by_model

    rng = np.random.default_rng(3)
    models = np.array(["m-a", "m-b", "m-c"])[rng.integers(0, 3, 300)]
    base = pl.DataFrame({"model": models, "x": np.arange(300), "answer_format": np.where(rng.random(300) < 0.2, "open", "choices")})
    some_null = base.with_columns(pl.when(pl.col("x") % 7 == 0).then(None).otherwise(pl.col("model")).alias("model"))
    for frame in (base, base.sort("model", maintain_order=True), some_null, base.sort("model", maintain_order=True).drop("answer_format")):
        labelled = frame
        if "answer_format" in frame.columns:
            is_open = pl.col("answer_format") == "open"
            labelled = frame.with_columns(pl.when(is_open).then(pl.col("model") + OPEN_SUFFIX).otherwise(pl.col("model")).alias("model"))
        expected = {k[0]: p for k, p in labelled.partition_by("model", as_dict=True, maintain_order=True).items() if k[0] is not None}
        got = _by_model(frame)
        assert list(got) == list(expected)
        for key in expected:
            assert got[key].equals(expected[key])


def test_latest_records_is_unique_keep_last_on_every_shape():
    """latest_records returns the frame itself when no key repeats; on frames with repeats (also
    repeats only through null keys) it is unique(keep="last", maintain_order=True), row for row."""
    import polars as pl

    from mirror_hf.scoring import latest_records
    from mirror_hf.scoring._columns import unique_rows

    rng = np.random.default_rng(5)
    for trial in range(40):
        n = int(rng.integers(0, 60))
        pool = int(rng.integers(1, 80))
        item = np.array([f"q{i}" for i in rng.integers(0, pool, n)], dtype=object)
        item[rng.random(n) < 0.1] = None
        channel = np.array(["natural", "wagering", None], dtype=object)[rng.integers(0, 3, n)]
        frame = pl.DataFrame({"model": ["m"] * n, "item_id": list(item), "channel": list(channel), "row": np.arange(n)},
                             schema={"model": pl.String, "item_id": pl.String, "channel": pl.String, "row": pl.Int64})
        expected = frame.unique(["model", "item_id", "channel"], keep="last", maintain_order=True)
        assert latest_records(frame, ("item_id", "channel")).equals(expected), trial
        first = frame.unique(["item_id", "channel"], keep="first", maintain_order=True)
        assert unique_rows(frame, ["item_id", "channel"], keep="first").equals(first), trial
