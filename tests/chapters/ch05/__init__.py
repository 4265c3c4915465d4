"""Chapter 05_embeddings: fixtures (`fixtures/*.diff`), the expectations table (`table.py`) and the chapter's own tests."""
