"""Data marks in the report's SVG figures: every artist that draws data gets an id starting with
`MARK`, so a test (and a reader's tool) can tell data from decoration. Its own module so the figure
modules (`figures`, `signals`) share it without importing each other."""

from __future__ import annotations

from typing import Any

MARK = "mark"


def mark(*artists: Any) -> Any:
    """Tag artists that draw data (points, lines, bars, cells; containers and lists of them), so
    the SVG says which of its elements are data: each gets an `id` starting with MARK."""
    for artist in artists:
        if artist is None:
            continue
        if hasattr(artist, "set_gid"):
            artist.set_gid(f"{MARK}-{id(artist):x}")
        if isinstance(artist, (list, tuple)):
            mark(*artist)
    return artists[0] if len(artists) == 1 else artists
