"""Chapter 07_encoder: fixtures (`fixtures/*.diff`), the expectations table (`table.py`) and the chapter's own tests."""
