"""The exceptions spk raises besides the built-in ones.

spk maps the kinds of its C++ errors onto Python exceptions:

=====================================  ===========================================
InvalidArgument, ShapeMismatch         ValueError
Format (malformed files)               spk.FormatError (an spk.Error and a ValueError)
OutOfMemory                            MemoryError
Unsupported (e.g. an op without CUDA)  NotImplementedError
Device (CUDA failures)                 spk.Error (a RuntimeError)
=====================================  ===========================================

Wrong dtypes raise TypeError; wrong shapes, layouts and devices raise ValueError.
"""


class Error(RuntimeError):
    """An error reported by spk's C++ library (CUDA device failures)."""


class FormatError(Error, ValueError):
    """A malformed input file (Matrix Market, FROSTT); the message says path:line."""
