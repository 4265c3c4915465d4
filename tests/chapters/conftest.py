"""The chapters' own tests run like the chapter-check tests: one torch thread (see `tests/checks/conftest.py`)."""
from tests.checks.conftest import _one_torch_thread  # noqa: F401 (an autouse fixture, active by being here)
