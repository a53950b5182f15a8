"""Croissant metadata for a dataset folder (installed as `mirror_hf.croissant`).

The hand-written parts (description, creators, licence, the Responsible-AI fields) live in
`rai.json` beside this file; everything else is generated from the folder: a FileObject with sha256
per parquet file, and a RecordSet per config whose fields are derived from the config's Features.
A single-file config reads its FileObject directly (mlcroissant then checks the hash when loading);
a config with several splits reads a FileSet over its files and gets a `split` field from the path.
"""

from __future__ import annotations

import datetime as dt
import json
from importlib import resources
from pathlib import Path

from datasets import Features, List, Value

from mirror_hf._version import __version__
from mirror_hf.folder import Publication, config_features, sha256_file, split_files

RELEASE_DATE = dt.datetime(2026, 11, 30)  # the version's date, not the build's: builds stay byte-identical
CONFORMS_TO = "http://mlcommons.org/croissant/1.1"
PARQUET = "application/x-parquet"

_DTYPES = {
    "string": "TEXT",
    "large_string": "TEXT",
    "bool": "BOOL",
    "int8": "INTEGER",
    "int16": "INTEGER",
    "int32": "INTEGER",
    "int64": "INTEGER",
    "float16": "FLOAT",
    "float32": "FLOAT",
    "float64": "FLOAT",
}


def _hand_written() -> dict:
    return json.loads(resources.files("mirror_hf.croissant").joinpath("rai.json").read_text())


def _data_type(feature):
    import mlcroissant as mlc

    if isinstance(feature, Value) and feature.dtype in _DTYPES:
        return getattr(mlc.DataType, _DTYPES[feature.dtype])
    raise TypeError(f"no Croissant data type for feature {feature!r}")


def _fields(record_set: str, features: Features | dict, source_kw: dict, parent: str | None = None) -> list:
    """Croissant fields for Features: scalars, lists of scalars (isArray) and structs (subFields)."""
    import mlcroissant as mlc

    out = []
    for name, feature in features.items():
        field_id = f"{record_set}/{name}" if parent is None else f"{parent}/{name}"
        if parent is None:
            source = mlc.Source(**source_kw, extract=mlc.Extract(column=name))
        else:
            top = parent.split("/", 1)[1].split("/", 1)[0]
            source = mlc.Source(**source_kw, extract=mlc.Extract(column=top), transforms=[mlc.Transform(json_path=name)])
        if isinstance(feature, dict):
            sub = _fields(record_set, feature, source_kw, parent=field_id)
            out.append(mlc.Field(id=field_id, name=name, sub_fields=sub, source=source))
        elif isinstance(feature, List):
            out.append(mlc.Field(id=field_id, name=name, data_types=[_data_type(feature.feature)], is_array=True, source=source))
        else:
            out.append(mlc.Field(id=field_id, name=name, data_types=[_data_type(feature)], source=source))
    return out


def build_metadata(root: Path, publication: Publication | None = None):
    """The folder's Croissant metadata as an `mlcroissant.Metadata`; `url` is the Hub repo's page
    when the folder is being published, else the project's page (a local folder has no URL)."""
    import mlcroissant as mlc

    from mirror_hf.card import CITATION

    hand = _hand_written()
    features = config_features(root)
    distribution, record_sets = [], []
    for config, files in split_files(root).items():
        for f in files:
            distribution.append(
                mlc.FileObject(
                    id=f.relative(root),
                    name=f.relative(root),
                    content_url=f.relative(root),
                    encoding_formats=[PARQUET],
                    sha256=sha256_file(f.path),
                    content_size=f"{f.path.stat().st_size} B",
                )
            )
        if len(files) == 1:
            source_kw = {"file_object": files[0].relative(root)}
            split_fields = []
        else:
            file_set = f"{config}-files"
            distribution.append(
                mlc.FileSet(id=file_set, name=file_set, includes=[f"data/{config}/*.parquet"], encoding_formats=[PARQUET])
            )
            source_kw = {"file_set": file_set}
            split_fields = [
                mlc.Field(
                    id=f"{config}/split",
                    name="split",
                    data_types=[mlc.DataType.TEXT],
                    source=mlc.Source(
                        file_set=file_set,
                        extract=mlc.Extract(file_property="filename"),
                        transforms=[mlc.Transform(regex=r"^(\w+)-[0-9a-f]{12}\.parquet$")],
                    ),
                )
            ]
        record_sets.append(
            mlc.RecordSet(
                id=config,
                name=config,
                description=_describe(config),
                fields=_fields(config, features[config], source_kw) + split_fields,
            )
        )
    rai = hand["rai"]
    return mlc.Metadata(
        name=hand["name"],
        description=hand["description"],
        url=publication.url if publication else hand["url"],
        license=[hand["license"]],
        creators=[mlc.Organization(name=c["name"], url=c.get("url")) for c in hand["creators"]],
        publisher=[mlc.Organization(name=c["name"], url=c.get("url")) for c in hand["publisher"]],
        keywords=hand["keywords"],
        in_language=hand["in_language"],
        date_published=RELEASE_DATE,
        version=__version__,
        cite_as=CITATION,
        conforms_to=[CONFORMS_TO],
        distribution=distribution,
        record_sets=record_sets,
        **rai,
    )


def _describe(config: str) -> str:
    from mirror_hf.dataset_builders import registry

    builder = registry().get(config)
    return builder.description if builder else f"Config {config}."


def croissant_json(root: Path, publication: Publication | None = None) -> dict:
    return build_metadata(root, publication).to_json()


def write_croissant(root: Path, publication: Publication | None = None) -> Path:
    path = root / "croissant.json"
    path.write_text(json.dumps(croissant_json(root, publication), indent=2, ensure_ascii=False, default=str) + "\n")
    return path
