"""Chapter 09_model: fixtures (`fixtures/*.diff`), the expectations table (`table.py`) and the chapter's own tests."""
