"""Chapter 13_decoding: fixtures (`fixtures/*.diff`), the expectations table (`table.py`) and the chapter's own tests."""
