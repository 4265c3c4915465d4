"""Find the one answer file in /autograder/submission: a .py, a notebook, or a folder holding either."""
import os
from pathlib import Path

from grader.grading.collect import PY_TRACK_FILE, SOURCE_SUFFIXES, Candidate, Submission

_SKIPPED = {"__MACOSX", ".ipynb_checkpoints", "__pycache__"}
MAX_LISTED = 5


def _listing(folder):
    """(answer-like files, other files, symlinks) below `folder`, relative, sorted; links are never followed."""
    answers, others, links = [], [], []
    for directory, subdirs, files in os.walk(folder):
        subdirs[:] = sorted(d for d in subdirs if d not in _SKIPPED and not d.startswith("."))
        for name in sorted(files):
            path = Path(directory, name)
            relative = path.relative_to(folder)
            if name.startswith("."):
                continue
            if path.is_symlink():
                links.append(relative)
            elif path.suffix.lower() in SOURCE_SUFFIXES:
                answers.append(relative)
            else:
                others.append(relative)
    return answers, others, links


def _names(paths):
    shown = ", ".join(str(p) for p in paths[:MAX_LISTED])
    return shown + (f" 외 {len(paths) - MAX_LISTED}개" if len(paths) > MAX_LISTED else "")


def choose(folder, chapter_id):
    """(relative path of the answer file, None) or (None, a Korean problem for the student)."""
    answers, others, links = _listing(folder)
    wanted = f"{chapter_id}.ipynb 또는 transformer.py 하나를 제출하세요."
    if not answers:
        found = others + links
        listed = f" (제출한 파일: {_names(found)})" if found else ""
        return None, f"채점할 파일(.py 또는 .ipynb)을 찾지 못했습니다{listed}. {wanted}"
    if len(answers) == 1:
        return answers[0], None
    for preferred in (f"{chapter_id}.ipynb", PY_TRACK_FILE):
        matching = [path for path in answers if path.name == preferred]
        if len(matching) == 1:
            return matching[0], None
    return None, f"제출한 파일 중 어느 것을 채점할지 정할 수 없습니다 ({_names(answers)}). {wanted}"


def find(folder, chapter_id, student_id="student"):
    """(the Submission to grade from `folder`, None) or (a Submission that cannot be read, a Korean problem)."""
    folder = Path(folder)
    relative, problem = choose(folder, chapter_id) if folder.is_dir() else (None, "제출물이 없습니다.")
    if relative is None:
        return Submission(student_id, student_id, str(folder), _problem=problem), problem
    path = folder / relative
    candidate = Candidate(student_id, path.name, str(relative), path=path)
    return Submission(student_id, student_id, str(relative), _candidate=candidate), None
