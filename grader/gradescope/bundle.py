"""Write a chapter's Gradescope autograder zip: setup.sh and run_autograder at its root, the grader code it needs."""
import sys
import zipfile
from pathlib import Path

from grader import chapters, paths
from grader.checks import judge_module_name, probe_module_name
from grader.sandbox.limits import CPU_CLOCK_BACKSTOP
from grader.sandbox.staging import ALWAYS, REPO_ROOT, closure, data_files, module_path, sandbox_modules

from .settings import Settings

HERE = Path(__file__).resolve().parent
ENTRY = "grader.gradescope.autograder"
STARTUP_SECONDS = 240  # the grader and the sandbox import torch; a cold container is slow
SCRIPT_MODE = 0o755


def modules(number):
    """Every `grader` module grading chapter `number` imports (package __init__ files followed too)."""
    roots = [ENTRY, judge_module_name(number), probe_module_name(number), *ALWAYS, *sandbox_modules()]
    return closure(roots, follow_packages=True)


def files(settings):
    """{name in the zip: (bytes, mode)} of the autograder for `settings`."""
    total = int(settings.wall_seconds * CPU_CLOCK_BACKSTOP) + STARTUP_SECONDS  # a timeout counts CPU time
    run = (HERE / "run_autograder").read_text(encoding="utf-8").replace("__TOTAL_SECONDS__", str(total))
    found = {
        "setup.sh": ((HERE / "setup.sh").read_bytes(), SCRIPT_MODE),
        "run_autograder": (run.encode("utf-8"), SCRIPT_MODE),
        "config.json": (settings.to_json().encode("utf-8"), 0o644),
    }
    for name in modules(settings.number):
        for path in (module_path(name), *data_files(name)):
            found[path.relative_to(REPO_ROOT).as_posix()] = (path.read_bytes(), 0o644)
    reference = paths.REFERENCE / f"{settings.chapter_id}.json"
    found[reference.relative_to(REPO_ROOT).as_posix()] = (reference.read_bytes(), 0o644)
    return found


def write(settings, out):
    """Write the zip to `out` (entries sorted, fixed dates: the same input gives the same bytes); return its names."""
    contents = files(settings)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(contents):
            data, mode = contents[name]
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return sorted(contents)


def run(chapter, out, hidden_visibility="after_published", timeout=None):
    """`python -m grader gradescope`: write the zip; return the exit status."""
    try:
        chapter_id = chapters.find(chapter).id
    except chapters.UnknownChapter:
        print(f"알 수 없는 장입니다: {chapter}", file=sys.stderr)
        return 2
    wall_seconds = timeout or chapters.find(chapter_id).checks.budget.wall_seconds  # default: the chapter's budget
    settings = Settings(chapter_id, hidden_visibility, wall_seconds=wall_seconds)
    out = out or f"autograder-{settings.number}.zip"
    names = write(settings, out)
    print(f"{out}: {len(names)}개 파일 (setup.sh, run_autograder, config.json, grader/…)", file=sys.stderr)
    return 0
