"""Chapter 10_batching: fixtures (`fixtures/*.diff`), the expectations table (`table.py`) and the chapter's own tests."""
