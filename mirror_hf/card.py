"""The dataset card (README.md): YAML `configs:` and `dataset_info:` generated from the same Features
the parquet files were written with, and a datasheet body rendered from `cards/dataset_card.md`.
`mirror_hf.metadata` calls it with the configs' Features and descriptions."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pyarrow.parquet as pq
from huggingface_hub import DatasetCard, DatasetCardData

from mirror_hf._version import __version__
from mirror_hf.bank._leaks import LEAK_BOUND, LEAK_Q, STRATEGIES
from mirror_hf.folder import read_marker, split_files

LICENSE = "cc-by-4.0"
PRETTY_NAME = "Mirror: metacognition and the knowing-doing gap in language models"
CITATION = """@article{mirror2026,
  title   = {Mirror: Do Language Models Know What They Know, and Act on It?},
  journal = {arXiv preprint arXiv:2604.19809},
  year    = {2026},
  url     = {https://arxiv.org/abs/2604.19809}
}"""
DEFAULT_CONFIG = "questions"


def card_data(root: Path, features: dict) -> DatasetCardData:
    files = split_files(root)
    configs, infos = [], []
    for config, split_list in files.items():
        entry = {
            "config_name": config,
            "data_files": [{"split": f.split, "path": f.relative(root)} for f in split_list],
        }
        if config == DEFAULT_CONFIG:
            entry["default"] = True
        configs.append(entry)
        infos.append({"config_name": config, "features": features[config]._to_yaml_list()})
    return DatasetCardData(
        license=LICENSE,
        pretty_name=PRETTY_NAME,
        language=["en"],
        task_categories=["question-answering", "text-generation"],
        tags=["calibration", "metacognition", "evaluation", "benchmark", "llm", "croissant"],
        size_categories=["1K<n<10K"],
        configs=configs,
        dataset_info=infos,
    )


def render_card(root: Path, features: dict, descriptions: dict[str, str]) -> str:
    """The card of folder `root`; `features` and `descriptions` per config (what the declarations say)."""
    marker = read_marker(root) or {}
    configs = []
    n_questions = 0
    for config, split_list in split_files(root).items():
        counts = {f.split: pq.read_metadata(f.path).num_rows for f in split_list}
        if config == "questions":
            n_questions = sum(counts.values())
        description = descriptions.get(config, "Added by another tool.")
        configs.append(
            {
                "name": config,
                "splits": ", ".join(f"{s}: {n:,}" for s, n in counts.items()),
                "description": description.replace("|", "\\|"),
            }
        )
    template = resources.files("mirror_hf.cards").joinpath("dataset_card.md").read_text()
    card = DatasetCard.from_template(
        card_data(root, features),
        template_str=template,
        version=marker.get("version", __version__),
        seed=marker.get("seed"),
        per_domain=marker.get("per_domain"),
        build_hash=marker.get("build_hash"),
        configs=configs,
        domains=marker.get("bank", []) if n_questions else [],
        leaks=marker.get("leaks", []) if n_questions else [],
        leak_strategies=list(STRATEGIES),
        leak_bound=f"{LEAK_BOUND:.0%}",
        leak_q=LEAK_Q,
        n_questions=f"{n_questions:,}",
        citation=CITATION,
    )
    return str(card)


def write_card(root: Path, features: dict, descriptions: dict[str, str]) -> Path:
    path = root / "README.md"
    path.write_text(render_card(root, features, descriptions))
    return path
