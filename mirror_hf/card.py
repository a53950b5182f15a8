"""The dataset card (README.md): YAML `configs:` and `dataset_info:` generated from the same Features
the parquet files were written with, and a datasheet body rendered from `cards/dataset_card.md`.
`mirror_hf.metadata` calls it with the configs' Features and descriptions."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pyarrow.parquet as pq
from huggingface_hub import DatasetCard, DatasetCardData

from mirror_hf._version import __version__
from mirror_hf.bank._leaks import LEAK_BOUND, LEAK_Q, PICKS
from mirror_hf.folder import Publication, read_marker, split_files
from mirror_hf.writes import markdown_text

LICENSE = "cc-by-4.0"
PRETTY_NAME = "Mirror: metacognition and the knowing-doing gap in language models"
CITATION = """@article{mirror2026,
  title   = {Mirror: Do Language Models Know What They Know, and Act on It?},
  journal = {arXiv preprint arXiv:2604.19809},
  year    = {2026},
  url     = {https://arxiv.org/abs/2604.19809}
}"""
DEFAULT_CONFIG = "questions"
# The Hub's size_categories labels, by upper bound on the number of rows.
SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
                   (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B"))


def size_category(rows: int) -> str:
    return next((label for bound, label in SIZE_CATEGORIES if rows < bound), "n>1B")


def split_sizes(path: Path) -> dict:
    """num_examples and num_bytes (uncompressed, from the parquet footer) of one split file."""
    meta = pq.read_metadata(path)
    return {"num_examples": meta.num_rows,
            "num_bytes": sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))}


def card_data(root: Path, features: dict, publication: Publication | None = None) -> DatasetCardData:
    files = split_files(root)
    configs, infos = [], []
    total_rows = 0
    for config, split_list in files.items():
        entry = {
            "config_name": config,
            "data_files": [{"split": f.split, "path": f.relative(root)} for f in split_list],
        }
        if config == DEFAULT_CONFIG:
            entry["default"] = True
        configs.append(entry)
        splits = [{"name": f.split, **split_sizes(f.path)} for f in split_list]
        total_rows += sum(s["num_examples"] for s in splits)
        infos.append({
            "config_name": config, "features": features[config]._to_yaml_list(), "splits": splits,
            "download_size": sum(f.path.stat().st_size for f in split_list),
            "dataset_size": sum(s["num_bytes"] for s in splits),
        })
    if publication is not None:
        configs += [dict(c) for c in publication.carried_configs]
        infos += [dict(i) for i in publication.carried_infos]
    return DatasetCardData(
        license=LICENSE,
        pretty_name=PRETTY_NAME,
        language=["en"],
        task_categories=["question-answering", "text-generation"],
        tags=["calibration", "metacognition", "evaluation", "benchmark", "llm", "croissant"],
        size_categories=[size_category(total_rows)],
        configs=configs,
        dataset_info=infos,
    )


def render_card(root: Path, features: dict, descriptions: dict[str, str], publication: Publication | None = None) -> str:
    """The card of folder `root`; `features` and `descriptions` per config (what the declarations say);
    `publication`: the Hub repo it is being pushed to, with the configs the repo holds beyond this folder."""
    from mirror_hf.provenance import card_rows

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
    for carried in publication.carried_configs if publication else ():
        configs.append({"name": markdown_text(carried["config_name"]), "splits": markdown_text(", ".join(
            str(d.get("split", "?")) for d in carried.get("data_files", []) if isinstance(d, dict)) or "?"),
            "description": "Added by another tool (kept as it is on the Hub)."})
    template = resources.files("mirror_hf.cards").joinpath("dataset_card.md").read_text()
    card = DatasetCard.from_template(
        card_data(root, features, publication),
        repo_id=publication.repo_id if publication else None,
        runs=card_rows(root),
        template_str=template,
        version=marker.get("version", __version__),
        seed=marker.get("seed"),
        per_domain=marker.get("per_domain"),
        build_hash=marker.get("build_hash"),
        configs=configs,
        domains=marker.get("bank", []) if n_questions else [],
        leaks=marker.get("leaks", []) if n_questions else [],
        leak_strategies=list(PICKS),
        leak_bound=f"{LEAK_BOUND:.0%}",
        leak_q=LEAK_Q,
        n_questions=f"{n_questions:,}",
        citation=CITATION,
    )
    return str(card)


def write_card(root: Path, features: dict, descriptions: dict[str, str], publication: Publication | None = None) -> Path:
    from mirror_hf.writes import atomic_write

    return atomic_write(root / "README.md", render_card(root, features, descriptions, publication))
