"""A real human baseline: the questionnaire (`human-packet`), its response files as trial splits
(`import-human`), and the authors' AI-simulated cohort (`import-upstream` of their packet folder)."""
