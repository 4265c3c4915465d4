"""Chapter 03_multihead: fixtures (`fixtures/*.diff`), the expectations table (`table.py`) and the chapter's own tests."""
