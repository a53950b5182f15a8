"""The package version, in a module of its own so that any room can read it without importing the
package `__init__` (whose `dataset_dir()` imports the build)."""

__version__ = "0.1.0"
