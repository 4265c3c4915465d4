"""Chapter 04_feedforward: fixtures (`fixtures/*.diff`), the expectations table (`table.py`) and the chapter's own tests."""
