"""Chapter 01_attention: fixtures (`fixtures/*.diff`), the expectations table (`table.py`) and the chapter's own tests."""
