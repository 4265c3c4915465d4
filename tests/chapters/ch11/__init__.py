"""Chapter 11_smoothing: fixtures (`fixtures/*.diff`), the expectations table (`table.py`) and the chapter's own tests."""
