"""Break the product on purpose, one change at a time, and check that the tests named for it fail.

    .venv/bin/python tests/mutations.py --list          # the mutations and the tests that must catch them
    .venv/bin/python tests/mutations.py root gradebook_first   # run some (or all, without names)
    .venv/bin/python tests/mutations.py --baseline             # first check that the tests pass unmutated

Each mutation is applied to a scratch copy of the repository (this checkout is never touched), the named tests
run there, and the mutation counts as caught when they fail. tests/MUTATIONS.md explains each entry. Not part of
the suite: every mutation costs a test run (the sandbox ones about a minute).
"""
import argparse
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ("exercises", "release", "grader/nbgrader_source")
sys.path.insert(0, str(ROOT))


@dataclass(frozen=True)
class Mutation:
    """Replace `old` (exactly once) by `new` in each file of `edits`; then `tests` must fail."""

    name: str
    change: str
    edits: tuple  # ((path, old, new), ...)
    tests: tuple


NEAR = "tests/checks/test_chapters.py::test_bug_fixture_fails_exactly_the_listed_checks_with_the_named_diagnosis"

MUTATIONS = [
    Mutation(
        "root",
        "the runner drops to the worker's uid with setresuid(uid, uid, 0) (saved uid root) and no self-check",
        (("grader/sandbox/privileges.py",
          "    os.setresuid(uid, uid, uid)\n    if 0 in os.getresuid() or 0 in os.getresgid():\n"
          "        raise RuntimeError(\"could not give up root\")\n",
          "    os.setresuid(uid, uid, 0)\n    if False:\n        raise RuntimeError(\"could not give up root\")\n"),
         ("grader/sandbox/privileges.py", "    try:\n        os.setuid(0)\n    except PermissionError:\n        return\n"
          "    raise RuntimeError(\"root could be regained after dropping privileges\")\n", "")),
        ("tests/sandbox/test_hostile.py::test_root_cannot_be_regained",),
    ),
    Mutation(
        "root_checked",
        "setresuid(uid, uid, 0) with drop_to's self-check kept: every job in bubblewrap crashes",
        (("grader/sandbox/privileges.py", "    os.setresuid(uid, uid, uid)\n", "    os.setresuid(uid, uid, 0)\n"),),
        ("tests/sandbox/test_correct.py::test_correct_submission_passes_every_case",),
    ),
    Mutation(
        "expected_in_job",
        "the pool sends the expected reference values in the job header and the runner hands them to the probe",
        (("grader/sandbox/protocol.py",
          '    header = json.dumps({"id": submission_id, "cases": list(cases), "size": len(body)}).encode()\n',
          '    from grader.checks import references\n'
          '    expected = references.load("01_attention")["cases"]\n'
          '    header = json.dumps({"id": submission_id, "cases": list(cases), "size": len(body), '
          '"expected": expected}).encode()\n'),
         ("grader/sandbox/protocol.py", '    return header["id"], cases, source\n',
          '    return header["id"], cases, source, header["expected"]\n'),
         ("grader/sandbox/job_runner.py",
          "    submission_id, cases, source = job\n    workdir = tempfile.mkdtemp(",
          "    submission_id, cases, source, expected = job\n"
          "    source = 'import sys\\nsys.modules[%r].EXPECTED = %r\\n' % (probe.__name__, expected) + source\n"
          "    workdir = tempfile.mkdtemp(")),
        ("tests/sandbox/test_leaks.py::test_no_hidden_value_is_within_reach",),
    ),
    Mutation(
        "expected_in_environment",
        "the sandbox's environment carries the expected reference values",
        (("grader/sandbox/staging.py", "def environment(code_dir, home, threads=1):\n",
          "def environment(code_dir, home, threads=1):\n    return dict(_environment(code_dir, home, threads), "
          "GRADER_EXPECTED=__import__('json').dumps(__import__('grader.checks.references', fromlist=['x'])"
          ".load('01_attention')['cases']))\n\n\ndef _environment(code_dir, home, threads=1):\n"),),
        ("tests/sandbox/test_leaks.py::test_no_hidden_value_is_within_reach",),
    ),
    Mutation(
        "reference_drift_ignored",
        "`build --check` ignores drift in grader/reference/*.json (and the selfcheck copies)",
        (("grader/publish/drift.py", "    return is_reference(path) and not differences(on_disk, data, limit=1)\n",
          "    return is_reference(path)\n"),),
        ("tests/publish/test_portability.py::test_a_real_change_of_the_solution_still_fails_the_check",),
    ),
    Mutation(
        "half_credit_zero",
        "a hidden check's half credit (p_attn right, output wrong) becomes zero: query_as_value 74 -> 65",
        (("grader/chapters/01_attention/ch01_judge.py", "        return Verdict(0.5, evidence.about(case, f\"p_attn",
          "        return Verdict(0.0, evidence.about(case, f\"p_attn"),),
        ("tests/grading/test_gradebook.py::test_grades_csv_has_the_exact_fractional_scores",),
    ),
    Mutation(
        "gradebook_first",
        "the gradebook keeps a student's first submission instead of the best",
        (("grader/grading/gradebook.py", "        if kept is None or row.score > kept.score:\n",
          "        if kept is None:\n"),),
        ("tests/grading/test_gradebook.py::test_gradebook_holds_each_students_best_submission",),
    ),
    Mutation(
        "gradebook_truncates",
        "the gradebook truncates check scores to integers",
        (("grader/grading/gradebook.py", "            grades[name].auto_score = float(score)\n",
          "            grades[name].auto_score = float(int(score))\n"),),
        ("tests/grading/test_gradebook.py::test_gradebook_cells_hold_the_check_scores_of_grades_csv",),
    ),
    Mutation(
        "page_title_unescaped",
        "page headings and <title> print the student id (and any heading text) unescaped",
        (("grader/report/page.py", "<title>{html.escape(title)}</title>", "<title>{title}</title>"),
         ("grader/report/page.py", 'return f"<h{block.level}>{_inline(block.text)}</h{block.level}>"',
          'return f"<h{block.level}>{block.text}</h{block.level}>"')),
        ("tests/report/test_pages.py::test_markup_from_a_submission_is_escaped_in_every_page",),
    ),
    Mutation(
        "silent_fallback",
        "the pool runs plain subprocesses although bubblewrap works, without a warning",
        (("grader/sandbox/modes.py",
          "    if bwrap.bubblewrap_available():\n        return _bubblewrap()\n",
          "    if bwrap.bubblewrap_available():\n        return Plain\n"),),
        ("tests/grading/test_command.py::test_every_submission_that_ran_ran_in_bubblewrap",),
    ),
    Mutation(
        "fallback_without_warning",
        "the fall-back runs student code without isolation and says nothing",
        (("grader/sandbox/modes.py", "    global _warned\n    if not _warned:\n", "    global _warned\n    if False:\n"),),
        ("tests/grading/test_contained.py::test_trusted_runs_plain_subprocesses_and_says_so",
         "tests/sandbox/test_fallback.py::test_fallback_says_so"),
    ),
    Mutation(
        "fallback_unconfined",
        "without bubblewrap, untrusted code runs as plain subprocesses instead of being contained or refused",
        (("grader/sandbox/modes.py", "    if run_as is None and not trusted:\n        if confine.available():\n"
          "            return Contained\n        raise SandboxError(REFUSAL)\n", ""),),
        ("tests/grading/test_contained.py::test_contained_grades_honest_code",
         "tests/grading/test_contained.py::test_refuses_where_nothing_contains"),
    ),
    Mutation(
        "import_error_in_command",
        "an import error inside the grading command (the demo test used to skip on it)",
        (("grader/grading/command.py", "import sys\n", "import sys\nimport grader.no_such_module  # noqa\n"),),
        ("tests/grading/test_command.py::test_usage_errors",),
    ),
    Mutation(
        "bwrap_detected_by_name",
        "bubblewrap counts as working when a `bwrap` is on PATH, without running it",
        (("grader/sandbox/bwrap.py", "    if bubblewrap_path() is None:\n        return False\n",
          "    return bubblewrap_path() is not None\n"),),
        ("tests/sandbox/test_setup.py::test_bwrap_that_does_not_sandbox_is_not_detected",),
    ),
    Mutation(
        "gradescope_visibility_inverted",
        "results.json gives hidden checks \"visible\" and visible ones the instructor's --hidden-visibility",
        (("grader/gradescope/document.py", '"visibility": hidden_visibility if hidden else "visible",',
          '"visibility": "visible" if hidden else hidden_visibility,'),),
        ("tests/gradescope/test_visibility.py",),
    ),
    Mutation(
        "ch11_rate_tolerance",
        "chapter 11's rate tolerance RTOL 1e-4 -> 1e-1: a schedule 5 % too high passes",
        (("grader/chapters/11_smoothing/ch11_judge.py", "RTOL = 1e-4  # relative", "RTOL = 1e-1  # relative"),),
        ("tests/checks/test_chapters.py::test_bug_fixture_fails_exactly_the_listed_checks_with_the_named_diagnosis"
         "[ch11-near_rate_5_percent_high]",),
    ),
    Mutation(
        "ch13_any_shape",
        "chapter 13 reshapes the student's tokens to (1, -1): greedy_decode returning ys[0] (1-D) passes",
        (("grader/chapters/13_decoding/ch13_judge.py", "    tokens = decode(result).to(torch.long)\n",
          "    tokens = decode(result).to(torch.long).reshape(1, -1)\n"),),
        ("tests/checks/test_chapters.py::test_bug_fixture_fails_exactly_the_listed_checks_with_the_named_diagnosis"
         "[ch13-near_ys_one_dimensional]",),
    ),
    Mutation(
        "ch07_attn_missing_accepted",
        "chapter 07's pad_attention accepts a MultiHeadedAttention that never stores self.attn",
        (("grader/chapters/07_encoder/ch07_judge.py", '    problem = None\n    if stored.get("kind") != "tensor":  # never',
          '    if stored.get("kind") != "tensor":\n        return Verdict.of(None)\n    problem = None\n    if False:  # never'),),
        ("tests/checks/test_chapters.py::test_bug_fixture_fails_exactly_the_listed_checks_with_the_named_diagnosis"
         "[ch07-attn_renamed]",
         "tests/chapters/ch07/test_ch07_diagnoses.py::test_a_changed_given_unit_fails_pad_attention_on_its_own_run"
         "[ok_given_attn_not_stored-MultiHeadedAttention-attn_missing]"),
    ),
    Mutation(
        "ch12_gradients_unchecked",
        "chapter 12's loss_compute skips the generator's gradients: right values with wrong gradients pass",
        (("grader/chapters/12_training/ch12_judge.py",
          '        if given.get("kind") != "tensor" or not close(decode(given), decode(grad)):\n',
          '        if False:\n'),),
        ("tests/checks/test_chapters.py::test_bug_fixture_fails_exactly_the_listed_checks_with_the_named_diagnosis"
         "[ch12-near_loss_gradient_cut]",),
    ),
    Mutation(
        "dropout_rate_tolerance",
        "module structures compare dropout rates with rel_tol 1e-2 instead of 1e-6: a rate 0.1 % off passes the structure",
        (("grader/checks/module_judge.py", "math.isclose(a, b, rel_tol=1e-6)", "math.isclose(a, b, rel_tol=1e-2)"),),
        ("tests/checks/test_chapters.py::test_bug_fixture_fails_exactly_the_listed_checks_with_the_named_diagnosis"
         "[ch08-near_dropout_tenth_percent]",),
    ),
    Mutation(
        "ch12_train_log_untested",
        "chapter 12's accum case runs run_epoch with mode=\"train\" again: ignoring \"train+log\" scores 100",
        (("grader/chapters/12_training/ch12_probe.py", 'accum_iter=2, mode="train+log"),', 'accum_iter=2, mode="train"),'),),
        ("tests/checks/test_chapters.py::test_bug_fixture_fails_exactly_the_listed_checks_with_the_named_diagnosis"
         "[ch12-near_train_log_ignored]",),
    ),
    Mutation(
        "ch12_loss_tolerance",
        "chapter 12 compares numbers with rtol 1e-2 instead of 1e-4: a loss 0.1 % off passes",
        (("grader/chapters/12_training/ch12_judge.py", "def near(found, expected, rtol=1e-4, atol=1e-5):",
          "def near(found, expected, rtol=1e-2, atol=1e-5):"),),
        ("tests/checks/test_chapters.py::test_bug_fixture_fails_exactly_the_listed_checks_with_the_named_diagnosis"
         "[ch12-near_loss_tenth_percent]",),
    ),
    Mutation(
        "ch13_copy_not_decoded_accepted",
        "chapter 13 no longer asks that the copy model's tokens were decoded: returning the source passes the copy checks",
        (("grader/chapters/13_decoding/ch13_judge.py",
          '    return None if made >= min(n - 1, probe.MAX_CALLS) else BUGS["not_decoded"]\n', '    return None\n'),),
        ("tests/checks/test_chapters.py::test_bug_fixture_fails_exactly_the_listed_checks_with_the_named_diagnosis"
         "[ch13-near_src_returned]",),
    ),
    Mutation(
        "process_cap_tenfold",
        "the default process cap Limits.max_processes 64 -> 640 (every other sandbox test uses its own limits)",
        (("grader/sandbox/limits.py", "    max_processes: int = 64\n", "    max_processes: int = 640\n"),),
        ("tests/sandbox/test_default_limits.py::test_fan_out_stops_at_the_default_process_cap",),
    ),
    Mutation(
        "bwrap_shares_the_network",
        "bubblewrap no longer unshares the network (the worker's own empty namespace still does)",
        (("grader/sandbox/bwrap.py", '"--unshare-pid", "--unshare-net", ', '"--unshare-pid", '),),
        ("tests/sandbox/test_network_layer.py::test_bubblewrap_alone_keeps_a_program_off_the_host_loopback",),
    ),
    Mutation(
        "unreadable_graded_ok",
        "an unreadable file gets the status ok (still 0 points)",
        (("grader/grading/judging.py", 'UNREADABLE = "unreadable"\n', 'UNREADABLE = "ok"\n'),),
        ("tests/grading/test_unreadable.py",),
    ),
    Mutation(
        "grades_csv_header_sorted",
        "grades.csv's header lists the checks sorted while each row keeps the contract's order",
        (("grader/grading/outputs.py", '"max_score", "status", *names])\n', '"max_score", "status", *sorted(names)])\n'),),
        ("tests/grading/test_gradebook.py::test_gradebook_cells_hold_the_check_scores_of_grades_csv",),
    ),
    Mutation(
        "pass_rate_partial_credit",
        "the class report's pass rate counts a check with partial credit as passed",
        (("grader/report/stats.py", '            entry["passed"] += test.get("status") == "passed"\n',
          '            entry["passed"] += float(test.get("score") or 0) > 0\n'),),
        ("tests/report/test_class_report.py::test_pass_rates_match",),
    ),
    Mutation(
        "indented_markers_unseen",
        "solution and hidden-test markers are seen only at the start of a line (an indented region stays in)",
        (("grader/publish/regions.py", "        marker = line.strip()\n", "        marker = line.rstrip()\n"),),
        ("tests/publish/test_regions.py",),
    ),
    Mutation(
        "student_cells_dropped",
        "a notebook's cells the student added are no longer read (only nbgrader answer cells)",
        (("grader/checks/loading.py",
          "    return not COURSE_CELL.match(_cell_text(cell).lstrip())\n",
          "    return False\n"),),
        ("tests/checks/test_notebook_as_run.py::test_only_student_cells_are_read",),
    ),
    Mutation(
        "memory_per_process_only",
        "the submission's control group gets no memory limit: only RLIMIT_AS per process holds",
        (("grader/sandbox/cgroups.py",  # both limits (memory+swap alone cannot be set below an unlimited memory limit)
          '        _write(os.path.join(memory, "memory.limit_in_bytes"), int(self.limits.memory_bytes))\n'
          '        swap = os.path.join(memory, "memory.memsw.limit_in_bytes")\n'
          '        if os.path.exists(swap):  # memory + swap: swapping out does not get around the limit\n'
          '            _write(swap, int(self.limits.memory_bytes))\n', ""),),
        ("tests/sandbox/test_isolation.py::test_groups_hold_the_memory_of_all_processes_together",),
    ),
    Mutation(
        "contained_sees_the_host",
        "without bubblewrap the contained worker keeps its namespaces and uid but hides nothing of the host",
        (("grader/sandbox/confine.py", '    _cover(sorted({*kept, *map(os.path.realpath, kept)}), "/dev/shm", scratch)\n',
          ""),),
        ("tests/grading/test_contained.py::test_exploits_earn_nothing_and_write_nothing",),
    ),
    Mutation(
        "result_unsigned",
        "the runner takes any well-framed result: the MAC is not compared",
        (("grader/sandbox/protocol.py",
          "    return len(frame) >= RESULT_PREFIX.size + MAC_BYTES and hmac.compare_digest(\n"
          "        sign(key, frame[:-MAC_BYTES]), frame[-MAC_BYTES:])\n",
          "    return len(frame) >= RESULT_PREFIX.size + MAC_BYTES\n"),),
        ("tests/sandbox/test_forged_result.py",),
    ),
    # Loosened judges of chapters 03, 04, 06 and 07, each caught by a near-miss fixture of issue 27.
    Mutation(
        "output_tolerance_loosened",
        "the default tensor tolerance rtol 1e-4 -> 1e-2: outputs 0.1 % off pass",
        (("grader/checks/compare.py", "DEFAULT_TOLERANCE = (1e-4, 1e-5)", "DEFAULT_TOLERANCE = (1e-2, 1e-5)"),),
        (NEAR + "[ch06-near_std_tenth_percent]", NEAR + "[ch07-near_layer_tenth_percent]"),
    ),
    Mutation(
        "module_gradients_unchecked",
        "module chapters' gradient checks accept any gradient values: a right output with gradients 0.1 % off passes",
        (("grader/checks/module_judge.py",
          '            if given.get("kind") != "tensor" or not close(decode(given), decode(grad)):\n',
          '            if given.get("kind") != "tensor":\n'),),
        (NEAR + "[ch03-near_gradient_tenth_percent]", NEAR + "[ch04-near_gradient_tenth_percent]"),
    ),
    Mutation(
        "dropout_rate_unchecked",
        "a module's structure check no longer compares its dropout rates: a default dropout=0.11 passes",
        (("grader/checks/module_judge.py", '    have, want = dict(found["dropout"]), dict(expected["dropout"])\n',
          "    return None\n"),),
        (NEAR + "[ch03-near_default_dropout]", NEAR + "[ch04-near_default_dropout]"),
    ),
    Mutation(
        "ch03_clones_length_unchecked",
        "chapter 03's clones check accepts any number of copies: N + 1 deep copies pass",
        (("grader/chapters/03_multihead/ch03_judge.py", '    if trace["length"] != 4:\n', "    if False:\n"),),
        (NEAR + "[ch03-near_clones_one_extra]",),
    ),
    Mutation(
        "ch03_attn_any_shape",
        "chapter 03's stores_attn compares self.attn flattened: weights with the heads merged into the batch pass",
        (("grader/chapters/03_multihead/ch03_judge.py", "    if close(attn, decode(expected)):\n",
          "    if close(attn.reshape(-1), decode(expected).reshape(-1)):\n"),),
        (NEAR + "[ch03-near_attn_heads_flat]",),
    ),
    Mutation(
        "ch07_padding_threshold_loosened",
        "chapter 07's pad_attention allows padding weights up to 1e-3: a mask filled with -10 passes",
        (("grader/chapters/07_encoder/ch07_judge.py",
          "    if problem is None and padding_weight(decode(stored), case) > 1e-6:\n",
          "    if problem is None and padding_weight(decode(stored), case) > 1e-3:\n"),),
        ("tests/chapters/ch07/test_ch07_diagnoses.py::test_a_changed_given_unit_fails_pad_attention_on_its_own_run"
         "[ok_given_fill_minus_ten-attention-padding_leak]",),
    ),
]


def copy_of_repository(target):
    """Tracked and untracked (not ignored) files of this checkout, copied to `target` and committed there (some
    tests copy the repository again with `git ls-files`)."""
    from tests.conftest import committed_copy

    return committed_copy(Path(target))


def generated_copies(repo, path, old):
    """The generated copies of a chapter checks module (exercises/_selfcheck/ or a chapter's exercises/NN/selfcheck/)
    that hold `old` as the module does: a rebuild would carry the mutation into them, so it must not show as drift."""
    if not path.startswith(("grader/checks/", "grader/chapters/")):
        return []
    name = Path(path).name
    return [copy for top in GENERATED for copy in sorted((repo / top).rglob(name))
            if copy.read_text(encoding="utf-8").count(old) == 1]


def apply(repo, mutation):
    """Make the mutation's edits in `repo` and its generated copies; return the original texts to restore."""
    originals = {}
    for path, old, new in mutation.edits:
        file = repo / path
        if file.read_text(encoding="utf-8").count(old) != 1:
            raise SystemExit(f"{mutation.name}: the text to change is not in {path} exactly once (update this script)")
        for target in [file, *generated_copies(repo, path, old)]:
            text = target.read_text(encoding="utf-8")
            originals.setdefault(target, text)
            target.write_text(text.replace(old, new), encoding="utf-8")
    return originals


def run(repo, mutation):
    """Run the mutation's tests in `repo`; return (caught, summary line)."""
    env = dict(os.environ, PYTHONPATH=str(repo), PATH=os.pathsep.join([str(Path(sys.executable).parent),
                                                                       os.environ.get("PATH", "")]))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *mutation.tests],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=1800)
    lines = done.stdout.strip().splitlines()
    summary = lines[-1] if lines else done.stderr.strip()[-200:]
    why = [line for line in lines if line.startswith("E   ")][:2]  # the first failed assertion
    return done.returncode == 1, "\n    ".join([summary, *why])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="mutations to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutations and their tests")
    parser.add_argument("--baseline", action="store_true", help="first run the tests unmutated: they must pass")
    parser.add_argument("--applies", action="store_true", help="only check that every change still applies")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTATIONS if not args.names or m.name in args.names]
    if args.list or not chosen:
        for mutation in MUTATIONS:
            print(f"{mutation.name}: {mutation.change}\n    caught by {', '.join(mutation.tests)}")
        return 0
    if args.applies:
        for mutation in chosen:
            for path, old, _ in mutation.edits:
                if (ROOT / path).read_text(encoding="utf-8").count(old) != 1:
                    raise SystemExit(f"{mutation.name}: the text to change is not in {path} exactly once")
        print(f"all {len(chosen)} mutations apply")
        return 0
    survived = []
    with tempfile.TemporaryDirectory(prefix="mutations-") as folder:
        os.chmod(folder, 0o755)  # the no-bubblewrap Gradescope path grades as another user, who must enter the clone
        repo = copy_of_repository(Path(folder) / "repo")
        if args.baseline:
            tests = tuple(dict.fromkeys(test for mutation in chosen for test in mutation.tests))
            failed, summary = run(repo, Mutation("baseline", "none", (), tests))
            print(f"{'FAILED  ' if failed else 'passed  '} baseline (no mutation): {summary}", flush=True)
            if failed:
                return 1
        for mutation in chosen:
            originals = apply(repo, mutation)
            try:
                caught, summary = run(repo, mutation)
            finally:
                for file, text in originals.items():
                    file.write_text(text, encoding="utf-8")
            print(f"{'caught  ' if caught else 'SURVIVED'} {mutation.name}: {summary}", flush=True)
            if not caught:
                survived.append(mutation.name)
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
