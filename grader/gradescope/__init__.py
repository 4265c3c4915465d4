"""A Gradescope autograder for a chapter: `python -m grader gradescope NN --out autograder-NN.zip`.

`bundle` writes the zip (setup.sh, run_autograder, config.json and the grader modules the chapter
needs); inside Gradescope's container `autograder` grades /autograder/submission with the same
pipeline as `python -m grader grade` (sandbox run, judged outside) and writes results.json.
"""
