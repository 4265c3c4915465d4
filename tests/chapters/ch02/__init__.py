"""Chapter 02_masking: fixtures (`fixtures/*.diff`), the expectations table (`table.py`) and the chapter's own tests."""
