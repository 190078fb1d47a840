"""The arrays of a results file: ``.npy`` blobs written and read without pickle.

Used by ``_tree.py``.  Each array is one ``.npy`` file (numpy's format:
magic, version, a header giving ``descr``, ``fortran_order`` and ``shape``, the bytes).  An
array is read only after its header passed every check, and none allocates more than the
bytes it brings:

* the header is at most :data:`MAX_NPY_HEADER` bytes and is read by numpy's header reader
  (``ast.literal_eval``, never pickle);
* the dtype comes from the header only, and must be a plain dtype (:func:`dtype_problem`):
  booleans, integers, floats, complex numbers, fixed-width text or bytes, dates and
  durations -- never objects (which would be pointers read from the file), structured or
  sub-array dtypes, nor a dtype whose items have no bytes (a zero itemsize makes any shape
  "fit" in no bytes);
* the shape has at most :data:`MAX_NDIM` non-negative dimensions, and the number of items
  times the itemsize must equal the bytes the blob holds after its header, exactly, before
  anything is allocated (a shape of 10**12 in a file of a few bytes is refused);
* the array is a copy of the file's bytes (numpy's ``frombuffer``), never built through a
  reconstructor.
"""
from __future__ import annotations

import io
import math

import numpy as np

__all__ = ["npy_parts", "NpyHeader", "read_npy_header", "npy_array", "dtype_problem",
           "MAX_NPY_HEADER", "MAX_NDIM"]

#: Longest ``.npy`` header read (numpy's own default limit).
MAX_NPY_HEADER = 10_000
#: Most dimensions of an array.
MAX_NDIM = 32
_KINDS = "biufcUSmM"


def dtype_problem(dtype: np.dtype) -> str | None:
    """Why ``dtype`` is not a plain dtype a results file may hold, or None."""
    if dtype.hasobject or dtype.kind == "O":
        return "its dtype holds Python objects, which a results file never holds"
    if dtype.fields is not None or dtype.subdtype is not None:
        return f"its dtype {dtype} is structured, which a results file never holds"
    if dtype.kind not in _KINDS:
        return f"its dtype {dtype} is not a plain number, text or date dtype"
    if dtype.itemsize == 0:
        return f"its dtype {dtype} has items of zero bytes"
    if dtype.metadata:
        return f"its dtype {dtype} carries metadata"
    return None


def npy_parts(arr: np.ndarray) -> tuple[bytes, np.ndarray]:
    """The ``.npy`` file of ``arr`` (a plain dtype; raises ValueError otherwise) as its
    header's bytes and its data as a flat byte array -- a view of ``arr`` when ``arr`` is
    contiguous, so that writing a file copies no array."""
    why = dtype_problem(arr.dtype)
    if why is not None:
        raise ValueError(why)
    fortran = arr.flags.f_contiguous and not arr.flags.c_contiguous
    if not (arr.flags.c_contiguous or fortran):
        arr = np.ascontiguousarray(arr)
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, np.lib.format.header_data_from_array_1_0(arr))
    flat = (arr.T if fortran else arr).reshape(-1)     # C order: a view
    return head.getvalue(), flat.view(np.uint8)


class NpyHeader:
    """What the header of one ``.npy`` blob says, checked: ``dtype``, ``shape``,
    ``fortran`` and where the data start (``offset``, from the blob's start)."""

    __slots__ = ("dtype", "shape", "fortran", "offset")

    def __init__(self, dtype, shape, fortran, offset):
        self.dtype, self.shape, self.fortran, self.offset = dtype, shape, fortran, offset

    @property
    def size(self) -> int:
        return math.prod(self.shape)


def read_npy_header(blob) -> NpyHeader:
    """The checked header of the ``.npy`` bytes ``blob`` (a memoryview); raises ValueError
    with the reason (see the module notes).  Nothing beyond the header is allocated."""
    fh = io.BytesIO(bytes(blob[:MAX_NPY_HEADER + 16]))
    try:
        major, minor = np.lib.format.read_magic(fh)
        if (major, minor) == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(
                fh, max_header_size=MAX_NPY_HEADER)
        elif (major, minor) in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(
                fh, max_header_size=MAX_NPY_HEADER)
        else:
            raise ValueError(f"npy version {major}.{minor} is not known")
    except Exception as exc:    # numpy's reader raises many types (a TokenError too)
        raise ValueError(f"its .npy header cannot be read ({type(exc).__name__}: "
                         f"{str(exc)[:200]})") from None
    why = dtype_problem(dtype)
    if why is not None:
        raise ValueError(why)
    if not (isinstance(shape, tuple) and len(shape) <= MAX_NDIM
            and all(type(d) is int and d >= 0 for d in shape)):
        raise ValueError(f"its shape {str(shape)[:80]} is not at most {MAX_NDIM} "
                         "non-negative dimensions")
    offset = fh.tell()
    header = NpyHeader(dtype, shape, bool(fortran), offset)
    have = len(blob) - offset
    if header.size * dtype.itemsize != have:      # exact Python integers: no overflow
        raise ValueError(f"its header declares {header.size} items of {dtype.itemsize} "
                         f"bytes ({header.size * dtype.itemsize} bytes) but it holds {have}")
    return header


def npy_array(blob, header: NpyHeader) -> np.ndarray:
    """The array of ``blob`` (whose header :func:`read_npy_header` checked), a copy."""
    flat = np.frombuffer(blob, dtype=header.dtype, count=header.size, offset=header.offset)
    order = "F" if header.fortran else "C"
    return flat.reshape(header.shape, order=order).copy(order="K")
