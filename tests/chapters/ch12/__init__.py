"""Chapter 12_training: fixtures (`fixtures/*.diff`), the expectations table (`table.py`) and the chapter's own tests."""
