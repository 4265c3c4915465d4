"""How long the test suite takes, and where the time goes: wall and CPU time of one pytest run, then its slowest
folders and files (from pytest's JUnit report). CPU time counts every process the tests started.

    .venv/bin/python bench/suite_time.py                    # the whole suite (`make test` minus ruff)
    .venv/bin/python bench/suite_time.py -m "not slow"      # `make test-fast`, in one process
    .venv/bin/python bench/suite_time.py -n 2 --dist loadgroup --no-loadscope-reorder -m "not slow"  # as make runs it
    .venv/bin/python bench/suite_time.py tests/publish --top 20

Extra arguments go to pytest. On a busy machine the wall time says little: compare CPU time, or the shares.
"""
import argparse
import collections
import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed_run(arguments, report):
    """(exit status, wall seconds, CPU seconds of the process tree) of pytest with `arguments`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                           *arguments], cwd=ROOT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done.returncode, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def seconds_by_file(report):
    """{test file: seconds} summed over its test cases (setup and teardown included, as pytest reports them)."""
    totals = collections.Counter()
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        totals[case.get("classname", "").replace(".", "/")] += float(case.get("time", 0))
    return totals


def folder_of(classname):
    """tests/<folder> of a JUnit class name such as tests.checks.test_chapters."""
    return "/".join(classname.split("/")[:2])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=12, help="how many of the slowest files to list")
    options, pytest_arguments = parser.parse_known_args()
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "junit.xml"
        status, wall, cpu = timed_run(pytest_arguments, report)
        by_file = seconds_by_file(report)
    total = sum(by_file.values()) or 1.0
    by_folder = collections.Counter()
    for name, seconds in by_file.items():
        by_folder[folder_of(name)] += seconds
    print(f"\npytest {' '.join(pytest_arguments)}: exit {status}, wall {wall:.0f} s, CPU {cpu:.0f} s "
          f"(tests {total:.0f} s, collection and start-up {max(wall - total, 0):.0f} s)")
    for folder, seconds in by_folder.most_common():
        print(f"  {folder:<40} {seconds:7.1f} s  {100 * seconds / total:5.1f} %")
    print(f"slowest {options.top} files:")
    for name, seconds in by_file.most_common(options.top):
        print(f"  {name:<60} {seconds:7.1f} s  {100 * seconds / total:5.1f} %")
    return status


if __name__ == "__main__":
    sys.exit(main())
