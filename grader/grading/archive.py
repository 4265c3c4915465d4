"""Read an LMS zip safely: list its entries (nested zips too), reject unsafe ones, copy one out under a size cap.

Nothing is ever extracted by entry name: an accepted entry is copied, on demand, to a generated file
name inside the caller's private temporary folder. Rejected: `..` or absolute paths, symlinks and
other special files, encrypted entries, entries too large or compressed suspiciously well, and
archives with too many entries or too much data in total (zip bombs).
"""
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grader.checks.loading import MAX_SUBMISSION_BYTES, SubmissionError, max_bytes, too_big

MAX_ENTRIES = 20_000  # per top-level archive, nested archives included
MAX_TOTAL_BYTES = 2 << 30  # declared uncompressed size of every entry, nested archives included
MAX_ENTRY_BYTES = MAX_SUBMISSION_BYTES  # a submission file (a notebook: `loading.max_bytes`)
MAX_NESTED_BYTES = 256 << 20  # a zip inside the zip (e.g. one student's folder)
MAX_DEPTH = 3
MAX_RATIO = 200  # uncompressed / compressed, for entries above RATIO_FLOOR
RATIO_FLOOR = 1 << 20
ARCHIVE_SUFFIXES = (".zip",)
_CHUNK = 1 << 16


class ArchiveError(Exception):
    """A whole archive that cannot be used (Korean message)."""


@dataclass(frozen=True)
class Entry:
    """One file inside an archive: where it is, its (decoded) name, its size and, if unsafe, why (Korean)."""

    container: Path  # the zip file on disk that holds it (a top-level or an extracted nested zip)
    label: str  # for messages: "class.zip:inner.zip:alice.ipynb"
    raw_name: str  # the name as stored (for zipfile)
    name: str  # the decoded name
    size: int
    problem: str | None = None
    path: str = ""  # where `nbgrader zip_collect` would extract it, relative to extracted/ (for LMS naming)

    def copy_to(self, target):
        """Copy the entry's bytes to `target` (a path in a private folder); raise SubmissionError if unreadable."""
        if self.problem:
            raise SubmissionError(self.problem)
        _copy(self, Path(target), max_bytes(self.name))


def entries(path, workdir):
    """Every entry of the zip at `path`, nested zips opened (into `workdir`); raise ArchiveError if unusable."""
    budget = _Budget()
    return list(_walk(Path(path), Path(path).name, Path(path).stem, Path(workdir), budget, depth=0))


class _Budget:
    """Counts entries and declared bytes across one top-level archive."""

    def __init__(self):
        self.entries = 0
        self.bytes = 0
        self.nested = 0

    def spend(self, label, info):
        self.entries += 1
        self.bytes += max(0, info.file_size)
        if self.entries > MAX_ENTRIES:
            raise ArchiveError(f"{label}: 항목이 너무 많습니다 (최대 {MAX_ENTRIES:,}개). 압축 폭탄일 수 있어 읽지 않습니다.")
        if self.bytes > MAX_TOTAL_BYTES:
            raise ArchiveError(
                f"{label}: 압축을 풀면 {MAX_TOTAL_BYTES:,} 바이트가 넘습니다. 압축 폭탄일 수 있어 읽지 않습니다.")


def _open(path, label):
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError):
        raise ArchiveError(f"{label}: 올바른 zip 파일이 아니거나 손상되었습니다.") from None


def _walk(path, label, folder, workdir, budget, depth):
    """Entries of one zip; `folder` is where nbgrader's extractor would put them (archives get their own folder)."""
    with _open(path, label) as archive:
        infos = archive.infolist()
    for info in infos:
        name = decoded_name(info)
        entry_label = f"{label}:{name}"
        budget.spend(label, info)
        if info.is_dir() and not _is_link(info):
            continue
        problem = unsafe(info, name)
        if problem is None and PurePosixPath(name.replace("\\", "/")).suffix.lower() in ARCHIVE_SUFFIXES:
            if depth + 1 > MAX_DEPTH:
                problem = f"압축 파일이 너무 깊이 겹쳐 있습니다 (최대 {MAX_DEPTH}단계): {name}"
            elif info.file_size > MAX_NESTED_BYTES:
                problem = f"안쪽 압축 파일이 너무 큽니다 ({info.file_size:,} 바이트, 최대 {MAX_NESTED_BYTES:,}): {name}"
            else:
                budget.nested += 1
                inner = workdir / f"nested-{budget.nested:05d}.zip"
                entry = Entry(path, entry_label, info.filename, name, info.file_size)
                try:
                    _copy(entry, inner, MAX_NESTED_BYTES)
                    inner_folder = f"{folder}/{PurePosixPath(name.replace(chr(92), '/')).with_suffix('')}"
                    yield from _walk(inner, entry_label, inner_folder, workdir, budget, depth + 1)
                    continue
                except (SubmissionError, ArchiveError) as error:
                    problem = str(error)
        yield Entry(path, entry_label, info.filename, name, info.file_size, problem, f"{folder}/{name}")


def decoded_name(info):
    """The entry's name; names stored without the UTF-8 flag are tried as UTF-8, then CP949 (Korean Windows)."""
    name = info.filename
    if info.flag_bits & 0x800:
        return name
    try:
        raw = name.encode("cp437")
    except UnicodeEncodeError:
        return name
    for encoding in ("utf-8", "cp949"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return name


def _is_link(info):
    return info.create_system == 3 and stat.S_ISLNK(info.external_attr >> 16)


def unsafe(info, name):
    """Why an entry must not be read (Korean), or None when it is an ordinary file with a safe name."""
    for text in {info.filename, name}:
        parts = text.replace("\\", "/").split("/")
        if "\0" in text or text.startswith(("/", "\\")) or (len(text) > 1 and text[1] == ":") or ".." in parts:
            return f"압축 파일 안의 경로가 안전하지 않아 거부했습니다 (상위 폴더 '..'나 절대 경로): {name}"
    mode = info.external_attr >> 16
    if _is_link(info):
        return f"압축 파일 안의 심볼릭 링크는 받지 않습니다: {name}"
    if info.create_system == 3 and stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return f"압축 파일 안의 특수 파일은 받지 않습니다: {name}"
    if info.flag_bits & 0x1:
        return f"암호가 걸린 항목은 읽을 수 없습니다: {name}"
    if info.file_size > max_bytes(name) and PurePosixPath(name).suffix.lower() not in ARCHIVE_SUFFIXES:
        return f"압축을 풀면 너무 큽니다: {too_big(name, info.file_size)} ({name})"
    if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(1, info.compress_size):
        return f"압축률이 비정상적으로 높습니다 (압축 폭탄 의심): {name}"
    return None


def _copy(entry, target, limit):
    """Stream the entry into `target`, stopping (and removing it) past `limit` bytes."""
    written = 0
    try:
        with zipfile.ZipFile(entry.container) as archive, archive.open(entry.raw_name) as source, \
                open(target, "wb") as sink:
            while chunk := source.read(_CHUNK):
                written += len(chunk)
                if written > limit:
                    raise SubmissionError(f"압축을 풀면 너무 큽니다 (최대 {limit:,} 바이트): {entry.name}")
                sink.write(chunk)
    except SubmissionError:
        Path(target).unlink(missing_ok=True)
        raise
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError, NotImplementedError, RuntimeError):
        Path(target).unlink(missing_ok=True)
        raise SubmissionError(f"압축 파일의 이 항목이 손상되어 읽을 수 없습니다: {entry.name}") from None
