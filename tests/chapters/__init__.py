"""Each chapter's tests in one folder `chNN/`: its fixtures (patches against the solution), its expectations table and
its own tests."""
