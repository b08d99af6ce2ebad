"""The shared argument checks."""

from __future__ import annotations

import numpy as np
import pytest

from icml26.common.validation import int_at_least


def test_ints_pass_and_come_back_as_python_ints() -> None:
    assert int_at_least(3, "n", 1) == 3
    v = int_at_least(np.int64(0), "n", 0)
    assert v == 0 and type(v) is int


@pytest.mark.parametrize("bad, exc, match", [(True, TypeError, "n must be an int, got bool"),
                                             (np.bool_(True), TypeError, "n must be an int"),
                                             (2.0, TypeError, "n must be an int, got float"),
                                             ("3", TypeError, "n must be an int"),
                                             (0, ValueError, r"n must be an int >= 1, got 0")])
def test_bad_values_name_the_argument(bad, exc, match) -> None:
    with pytest.raises(exc, match=match):
        int_at_least(bad, "n", 1)
