"""Chapter 14_attention_maps: fixtures (`fixtures/*.diff`), the expectations table (`table.py`) and the chapter's own tests."""
