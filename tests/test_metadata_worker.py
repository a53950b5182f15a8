"""The metadata worker (`metadata.MetadataWorker`): the card, Croissant and eval.yaml it writes from
its child process are byte for byte what `refresh_metadata` writes here, and a child that died
falls back to refreshing here."""

from __future__ import annotations

import shutil

from mirror_hf.metadata import MetadataWorker, refresh_metadata

FILES = ("README.md", "croissant.json", "eval.yaml")


def _strip(root):
    before = {name: (root / name).read_bytes() for name in FILES}
    for name in FILES:
        (root / name).unlink()
    return before


def test_child_writes_what_refresh_metadata_writes(dataset, tmp_path):
    expected_root = tmp_path / "expected"
    shutil.copytree(dataset, expected_root)
    refresh_metadata(expected_root)
    expected = {name: (expected_root / name).read_bytes() for name in FILES}
    _strip(dataset)
    with MetadataWorker(spawn=True) as worker:
        assert worker._proc is not None
        worker(dataset)
        assert worker._proc is not None, "the child failed and the worker fell back"
    for name in FILES:
        assert (dataset / name).read_bytes() == expected[name], name


def test_dead_child_falls_back_to_this_process(dataset):
    expected = _strip(dataset)
    worker = MetadataWorker(spawn=True)
    worker._proc.kill()
    worker._proc.wait()
    worker(dataset)
    assert worker._proc is None
    for name in FILES:
        assert (dataset / name).read_bytes() == expected[name], name
    worker.close()


def test_unused_worker_is_stopped():
    worker = MetadataWorker(spawn=True)
    proc = worker._proc
    worker.close()
    assert proc.returncode is not None
