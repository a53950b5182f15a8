"""Croissant assembly (installed as mirror_hf.croissant)."""
