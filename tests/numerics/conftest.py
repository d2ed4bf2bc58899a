"""Shared test setup for the numerical checks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture(autouse=True)
def single_threaded_blas() -> Iterator[None]:
    """Run every test with one BLAS thread: the matrices are small, and on a shared
    2-core machine a multi-threaded BLAS spins for cores it does not get."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield
