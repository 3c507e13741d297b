"""Stands in for the compiled module chainsaw._core where it is missing (a source tree, a copy
without the build), so that ``import chainsaw.study`` (pandas, SciPy, matplotlib only) works:
only a compiled function's use raises, in one line."""
from __future__ import annotations


class ChainsawError(RuntimeError):
    """The compiled module's error type; never raised without it."""


class NoCore:
    """Any attribute of it raises ImportError naming what is missing and what still works."""

    def __init__(self, cause: ImportError):
        self._message = (f"chainsaw: the compiled module chainsaw._core is missing ({cause}): "
                         "build or install chainsaw (docs/python.md); chainsaw.study needs only "
                         "pandas, SciPy and matplotlib")

    def __getattr__(self, name: str):
        raise ImportError(self.__dict__.get("_message", "chainsaw._core is missing"))
