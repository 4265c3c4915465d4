"""Find the submissions in the PATHs given to `grade`: files, nbgrader `submitted/` trees and LMS zips.

Listing is cheap and keeps nothing of a submission but where it is; its source is read only when
the sandbox is ready for it (`Submission.read`). A submission that cannot be read still becomes a
Submission whose `read` raises SubmissionError (Korean), so it is graded 0 with that message.
"""
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader.checks.loading import SubmissionError, read_source

from . import archive
from .naming import UniqueIds, lms_name, parse_timestamp

SOURCE_SUFFIXES = (".ipynb", ".py")
PY_TRACK_FILE = "transformer.py"
_SKIPPED_PARTS = {"__MACOSX", ".ipynb_checkpoints", "__pycache__"}


@dataclass
class Candidate:
    """A file that may be a student's answer, before one is chosen per student."""

    student_id: str
    file_name: str  # the name nbgrader would give it in submitted/<student>/<assignment>/
    origin: str
    timestamp: str | None = None
    path: Path | None = None  # a file on disk …
    entry: archive.Entry | None = None  # … or an entry of a zip
    problem: str | None = None  # why it cannot be read (Korean)
    group: str | None = None  # candidates sharing a group are one student's files; None: a submission of its own


@dataclass
class Submission:
    """One student's answer to grade: ids, where it came from, and how to read its Python source."""

    submission_id: str
    student_id: str
    origin: str
    timestamp: str | None = None
    _candidate: Candidate | None = field(default=None, repr=False)
    _problem: str | None = None
    _workdir: Path | None = field(default=None, repr=False)
    superseded: tuple = ()  # older attempts of the same file, not graded: ({"timestamp", "origin"}, …), oldest first

    @property
    def file_name(self):
        """The submitted file's name (`….ipynb` or `….py`), or "" when there is none."""
        return self._candidate.file_name if self._candidate else ""

    def read(self):
        """The submission's Python source; raise SubmissionError (Korean) when it cannot be read."""
        if self._problem:
            raise SubmissionError(self._problem)
        candidate = self._candidate
        if candidate.problem:
            raise SubmissionError(candidate.problem)
        if candidate.path is not None:
            return read_source(candidate.path)
        suffix = PurePosixPath(candidate.file_name).suffix.lower()
        handle, copy = tempfile.mkstemp(suffix=suffix, dir=self._workdir)
        os.close(handle)
        try:
            candidate.entry.copy_to(copy)
            return read_source(copy)
        finally:
            Path(copy).unlink(missing_ok=True)


class Inputs:
    """The submissions found in some PATHs, plus input-level problems; owns a private temp folder (use `with`)."""

    def __init__(self, paths, chapter_id, course, warn=None):
        self.chapter_id = chapter_id
        self.named_regexp, valid_ext = course.lms_naming()
        self.archive_suffixes = set(SOURCE_SUFFIXES) | {ext.lower() for ext in valid_ext}
        self.problems = []
        self.warn = warn or (lambda text: print(text, file=sys.stderr))
        self._temp = tempfile.TemporaryDirectory(prefix="grader-inputs-")
        self.workdir = Path(self._temp.name)
        os.chmod(self.workdir, 0o700)
        candidates = []
        for path in paths:
            candidates.extend(self._from_path(Path(path)))
        self.submissions = self._choose(candidates)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        self._temp.cleanup()

    # ------------------------------------------------------------------ kinds of PATH

    def _from_path(self, path):
        if not path.exists() and not path.is_symlink():
            self.problems.append(f"{path}: 경로가 없습니다.")
            return []
        if path.is_dir():
            return self._from_directory(path)
        suffix = path.suffix.lower()
        if suffix in archive.ARCHIVE_SUFFIXES:
            return self._from_archive(path)
        if suffix in SOURCE_SUFFIXES:  # named by the instructor: taken as given (a symlink too)
            student, file_name, timestamp, _ = self._name(path.name)
            return [Candidate(student, file_name, str(path), timestamp, path=path)]
        self.problems.append(f"{path}: .py, .ipynb, 제출 폴더 또는 .zip만 채점할 수 있습니다.")
        return []

    def _name(self, name):
        """(student id, nbgrader file name, timestamp, named) from a file name: LMS naming, else the file's stem."""
        found = lms_name(self.named_regexp, name)
        if found:
            return (*found, True)
        return PurePosixPath(name).stem, PurePosixPath(name).name, None, False

    def _from_directory(self, folder):
        """An nbgrader tree (submitted/, submitted/<student>, submitted/<student>/<assignment>) or a flat folder."""
        if folder.name == self.chapter_id and folder.parent.name:
            return self._from_student(folder.resolve().parent.name, folder)
        if (folder / self.chapter_id).is_dir():
            return self._from_student(folder.resolve().name, folder / self.chapter_id)
        students = sorted(child for child in folder.iterdir() if child.is_dir() and (child / self.chapter_id).is_dir())
        if students:
            found = []
            for student in students:
                found.extend(self._from_student(student.name, student / self.chapter_id))
            return found
        files = _source_files(folder)
        if not files:
            self.problems.append(f"{folder}: 채점할 파일(.py, .ipynb)이나 nbgrader 제출 폴더가 없습니다.")
        found = []
        for path in files:
            student, file_name, timestamp, named = self._name(path.name)
            found.append(Candidate(student, file_name, str(path), timestamp, path=path, problem=_link_problem(path),
                                   group=f"dir:{folder.resolve()}:{student}" if named else None))
        return found

    def _from_student(self, student, folder):
        """The files of one student's nbgrader assignment folder (its timestamp.txt too)."""
        timestamp = _read_timestamp(folder / "timestamp.txt")
        group = f"tree:{folder.resolve()}"
        files = _source_files(folder)
        if not files:
            return [Candidate(student, "", str(folder), timestamp, group=group,
                              problem="제출 폴더에 채점할 파일(.ipynb 또는 .py)이 없습니다.")]
        return [Candidate(student, p.name, str(p), timestamp, path=p, problem=_link_problem(p), group=group)
                for p in files]

    def _from_archive(self, path):
        try:
            entries = archive.entries(path, self.workdir)
        except archive.ArchiveError as error:
            self.problems.append(str(error))
            return []
        found, skipped, unnamed = [], 0, 0
        for entry in entries:
            name = entry.name.replace("\\", "/")
            pure = PurePosixPath(name)
            if _SKIPPED_PARTS & set(pure.parts) or pure.name.startswith("."):
                continue
            if pure.suffix.lower() not in self.archive_suffixes:
                skipped += 1
                if entry.problem:
                    self.warn(f"거부: {entry.label} — {entry.problem}")
                continue
            if entry.problem:
                self.warn(f"거부: {entry.label} — {entry.problem}")
            lms = lms_name(self.named_regexp, entry.path.replace("\\", "/"))
            parts = pure.parts
            if lms is not None:
                student, file_name, timestamp = lms
                group = f"zip:{path.resolve()}:{student}"
            elif len(parts) >= 3 and parts[-2] == self.chapter_id:  # a zipped nbgrader submitted/ tree
                student, file_name, timestamp = parts[-3], pure.name, None
                group = f"zip:{path.resolve()}:{'/'.join(parts[:-1])}"
            else:
                unnamed += 1
                student, file_name, timestamp, group = pure.stem, pure.name, None, None
            found.append(Candidate(student, file_name, entry.label, timestamp, entry=entry, problem=entry.problem,
                                   group=group))
        if skipped:
            self.warn(f"{path.name}: 채점 대상이 아닌 파일 {skipped}개를 건너뛰었습니다.")
        if unnamed:
            self.warn(f"{path.name}: 파일 {unnamed}개는 LMS 이름 규칙(named_regexp)에 맞지 않아 파일 이름으로 학생을 정했습니다.")
        return found

    # ------------------------------------------------------------------ one file per student

    def _choose(self, candidates):
        """Group candidates by (origin kind, student); keep the newest of duplicates; pick the answer file."""
        groups = {}
        for number, candidate in enumerate(candidates):
            groups.setdefault(candidate.group or number, []).append(candidate)
        ids = UniqueIds()
        submissions = []
        for group in groups.values():
            kept, older = _newest(group)
            chosen, problem = self._pick(kept)
            if chosen is None:
                chosen = group[0]
            student = chosen.student_id
            submission_id = ids.take(student)
            superseded = tuple({"timestamp": c.timestamp, "origin": c.origin} for c in older)
            if superseded:
                self._tell_superseded(student, chosen, superseded)
            submissions.append(Submission(submission_id, student, chosen.origin, chosen.timestamp, chosen, problem,
                                          self.workdir, superseded))
        return sorted(submissions, key=lambda s: s.submission_id)

    def _tell_superseded(self, student, chosen, superseded):
        """Log that older attempts of `student` are not graded, and which attempt is."""
        older = ", ".join(attempt["timestamp"] or attempt["origin"] for attempt in superseded)
        self.warn(f"학생 {student}: 이전 시도 {len(superseded)}개({older})는 채점하지 않고 가장 새로운 시도"
                  f"({chosen.timestamp or chosen.origin})를 채점합니다.")

    def _pick(self, group):
        """(the candidate holding the answer, or None with a Korean problem) among one student's files."""
        if len(group) == 1:
            return group[0], None
        for preferred in (f"{self.chapter_id}.ipynb", PY_TRACK_FILE):
            for candidate in group:
                if candidate.file_name == preferred:
                    return candidate, None
        names = ", ".join(sorted(c.file_name for c in group))
        return None, f"제출한 파일 중 어느 것을 채점할지 정할 수 없습니다 ({names}). {self.chapter_id}.ipynb 하나만 제출하세요."


def _newest(group):
    """(kept, older): of several files with the same name for one student, the one with the newest timestamp is kept
    (later wins ties); the others are the older attempts, oldest first."""
    kept, older = {}, []
    for candidate in group:
        old = kept.get(candidate.file_name)
        if old is None:
            kept[candidate.file_name] = candidate
            continue
        new_time, old_time = parse_timestamp(candidate.timestamp), parse_timestamp(old.timestamp)
        if new_time is None or old_time is None or new_time >= old_time:
            kept[candidate.file_name], candidate = candidate, old
        older.append(candidate)
    older.sort(key=lambda c: (str(parse_timestamp(c.timestamp) or ""), c.origin))
    return list(kept.values()), older


def _source_files(folder):
    """The .py and .ipynb files directly in `folder` (symlinks included, to be rejected), sorted."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in SOURCE_SUFFIXES and not p.name.startswith(".")
                  and (p.is_symlink() or p.is_file()))


def _link_problem(path):
    if path.is_symlink():
        return f"심볼릭 링크는 채점하지 않습니다: {path.name}"
    return None


def _read_timestamp(path):
    """The text of an nbgrader timestamp.txt, or None."""
    try:
        if path.is_file() and not path.is_symlink() and path.stat().st_size < 200:
            return path.read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        return None
    return None
