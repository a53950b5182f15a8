"""The files every `evaluate` metric folder carries beside its script and card, generated here once
for all of them (including metrics added later): `requirements.txt`, naming the real distributions a
Space or a fresh environment must install, and evaluate's `app.py` convention (a Gradio widget over
the module), which the cards' front matter (`sdk: gradio`, `app_file: app.py`) points to.

The scripts themselves mark every `mirror_hf` import `# From: mirror-hf`, so evaluate's missing-
dependency message says `pip install mirror-hf` (the distribution), not the import name.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, requires

DISTRIBUTION = "mirror-hf"

APP_PY = '''import os

import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load(os.path.dirname(os.path.abspath(__file__)))
launch_gradio_widget(module)
'''


def requirements_txt() -> str:
    """`evaluate` as pinned by this package (pyproject is the one source), then this package itself."""
    from mirror_hf._version import __version__

    try:
        pins = [r.split(";")[0].strip() for r in requires(DISTRIBUTION) or [] if r.split(";")[0].strip().startswith("evaluate")]
    except PackageNotFoundError:  # running from a source tree that was never installed
        pins = []
    return "\n".join([*(pins or ["evaluate"]), f"{DISTRIBUTION}=={__version__}"]) + "\n"


def generated_files() -> dict[str, str]:
    """name -> content of the files generated into every metric folder."""
    return {"app.py": APP_PY, "requirements.txt": requirements_txt()}
