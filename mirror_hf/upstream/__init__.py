"""Reading the authors' released files (spec/upstream-data.md) into our records: their banks into
`upstream_*` configs, their results into the `trials_*` configs our runner writes, with everything
cleaned on the way counted in a per-file report. Entry point: `import_upstream`."""

from mirror_hf.upstream.importer import ImportResult, convert, import_upstream
from mirror_hf.upstream.read import SourceFile, UpstreamError, classify, read_source
from mirror_hf.upstream.report import CleanReport
from mirror_hf.upstream.results import model_split

__all__ = [
    "CleanReport",
    "ImportResult",
    "SourceFile",
    "UpstreamError",
    "classify",
    "convert",
    "import_upstream",
    "model_split",
    "read_source",
]
