"""Commands of this area register on `mirror_hf.cli._app.app` (placeholder until implemented)."""

from mirror_hf.cli._app import app  # noqa: F401
