"""The bundled sample class of `python -m grader demo`: answer cells (`answers/`) and who sent what (`class.json`)."""
