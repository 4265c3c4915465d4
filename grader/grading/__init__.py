"""Batch grading: submissions → sandboxed runs → judged in the grader process → results, CSV, gradebook."""
