"""Run untrusted student code: warm, sandboxed workers (bubblewrap when available) under strict limits."""
from .bwrap import bubblewrap_available
from .limits import Limits
from .pool import RunResult, SandboxError, SandboxPool

__all__ = ["Limits", "RunResult", "SandboxError", "SandboxPool", "bubblewrap_available"]
