"""Chapter 08_decoder: fixtures (`fixtures/*.diff`), the expectations table (`table.py`) and the chapter's own tests."""
