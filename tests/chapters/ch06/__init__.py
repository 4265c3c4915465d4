"""Chapter 06_sublayer: fixtures (`fixtures/*.diff`), the expectations table (`table.py`) and the chapter's own tests."""
