"""Student ids from file names (nbgrader's LMS naming, else the file stem) and safe, unique submission ids."""
import os
import re
import unicodedata
from pathlib import PurePosixPath

# nbgrader's documented LMS naming (Blackboard-style `<assignment>_<student>_attempt_<timestamp>_<file>`): the one
# copy, read by nbgrader_config.py, the demo course and the grader when a course config does not set it.
NAMED_REGEXP = r".*_(?P<student_id>\w+)_attempt_(?P<timestamp>[0-9\-]+)_(?P<file_id>.*)"
_UNSAFE = re.compile(r"[^\w.@-]+")
MAX_ID_LENGTH = 80


def lms_name(named_regexp, name):
    """(student id, file id, timestamp) when `name` follows the LMS naming, as nbgrader's collector reads it; else None.

    Same rule as nbgrader's FileNameCollectorPlugin: `re.match(named_regexp, name)` with named groups
    `student_id` and `file_id` (and optionally `timestamp`).
    """
    match = re.match(named_regexp, name) if named_regexp else None
    if not match or not match.groups():
        return None
    info = match.groupdict()
    student, file_id = info.get("student_id"), info.get("file_id")
    if not isinstance(student, str) or not student or not isinstance(file_id, str):
        return None
    stem = PurePosixPath(os.path.splitext(file_id)[0]).name or PurePosixPath(name).stem
    return student, stem + PurePosixPath(name).suffix, info.get("timestamp") or None


def safe_id(text):
    """`text` as a file-name-safe id: letters (any script), digits, `_ . @ -`; never empty or hidden."""
    text = unicodedata.normalize("NFC", str(text))
    cleaned = _UNSAFE.sub("_", text).strip("._") or "submission"
    return cleaned[:MAX_ID_LENGTH]


class UniqueIds:
    """Hand out distinct submission ids: the safe form of a name, then `-2`, `-3`, … on collisions."""

    def __init__(self):
        self._taken = set()

    def take(self, name):
        base = safe_id(name)
        candidate, number = base, 1
        while candidate.casefold() in self._taken:
            number += 1
            candidate = f"{base}-{number}"
        self._taken.add(candidate.casefold())
        return candidate


def parse_timestamp(text):
    """A naive UTC datetime from a timestamp string, read the way nbgrader.utils.parse_utc reads it; None if unreadable.

    (nbgrader's own function is not imported here: importing nbgrader costs seconds.)
    """
    import dateutil.parser
    import dateutil.tz

    if not text:
        return None
    try:
        parts = text.split(" ")
        if len(parts) == 3:
            zone = parts[2]
            try:
                zone = int(zone)
            except ValueError:
                zone = dateutil.tz.gettz(zone)
            value = dateutil.parser.parse(" ".join(parts[:2] + ["TZ"]), tzinfos={"TZ": zone})
        else:
            value = dateutil.parser.parse(text)
    except (ValueError, OverflowError, TypeError):
        return None
    if value.tzinfo is not None:
        value = (value - value.utcoffset()).replace(tzinfo=None)
    return value
