"""Plain JSON values from what checks measure (numpy scalars and arrays, tuples, dataclasses, non-finite floats)."""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["jsonable"]


def jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays, tuples, dataclasses and non-finite floats into plain JSON values."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {k: jsonable(v) for k, v in dataclasses.asdict(obj).items()}
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else repr(obj)  # "nan", "inf": JSON has no such numbers
    tolist = getattr(obj, "tolist", None)  # numpy scalars and arrays, torch tensors
    if callable(tolist):
        return jsonable(tolist())
    item = getattr(obj, "item", None)
    if callable(item):
        return jsonable(item())
    return str(obj)
