"""`mirror-hf study`: the whole of Mirror for one model (or several, from a models file) in
dependency order — Exp1, its profile, the tailored tasks, Exp9 and every other experiment, then
score, report and an optional push — planned before anything is sent and resumable after a kill.

The study adds no way of sending, recording or writing: every step is the existing code path
(`runner.run` with resume, `runner.profile`, `tasks tailor`, `score`, `report`, `hub.push`) called
in-process, so the run journal under `.runs/` is what makes a rerun continue where it stopped.
"""

from mirror_hf.study.models_file import ModelEntry, ModelsFileError, read_models_file
from mirror_hf.study.presets import PRESETS, Preset, preset
from mirror_hf.study.run import StudyError, StudyOptions, StudyResult, run_study

__all__ = ["ModelEntry", "ModelsFileError", "PRESETS", "Preset", "StudyError", "StudyOptions", "StudyResult",
           "preset", "read_models_file", "run_study"]
