"""A correct submission passes; results do not depend on the number of workers (speed: bench/bench_sandbox.py)."""
import pytest

from . import submissions as s
from .conftest import passed, run_batch

pytestmark = pytest.mark.sandbox


def _mixed_batch(solution_source, case_names):
    """Correct, wrong, broken and exiting submissions, in a fixed order."""
    wrong = solution_source.replace("/ math.sqrt(d_k)", "* math.sqrt(d_k)")
    assert wrong != solution_source
    sources = [solution_source, wrong, s.SYNTAX_ERROR, s.MISSING_FUNCTION, s.EXIT_IN_CALL,
               s.OS_EXIT_AT_IMPORT, s.prelude("print('안녕하세요')", solution_source)]
    return [(f"sub{index:02d}", source, case_names) for index, source in enumerate(sources * 2)]


def test_correct_submission_passes_every_case(bwrap_pool, solution_source, case_names):
    """The correct solution runs in bubblewrap and returns a trace without error for every case."""
    (result,) = bwrap_pool.run([("correct", solution_source, case_names)])
    assert result.submission_id == "correct"
    assert result.sandbox == "bubblewrap"
    assert passed(result), result
    assert list(result.result["traces"]) == case_names
    assert result.stdout == "" and result.stderr == ""
    assert result.seconds > 0


def test_results_identical_for_one_and_two_workers(bwrap_pool, serial_pool, solution_source, case_names):
    """The same batch gives the same status, result and output per submission with jobs=1 and jobs=2."""
    batch = _mixed_batch(solution_source, case_names)
    serial = run_batch(serial_pool, batch)
    parallel = run_batch(bwrap_pool, batch)
    assert set(serial) == set(parallel) == {name for name, _, _ in batch}

    def essence(result):
        return result.status, result.result, result.stdout, result.stderr

    assert {name: essence(r) for name, r in serial.items()} == {name: essence(r) for name, r in parallel.items()}
    assert serial["sub06"].stdout == "안녕하세요\n"
    assert passed(serial["sub00"]) and serial["sub00"].result != serial["sub01"].result


def test_results_stream_lazily(bwrap_pool, solution_source, case_names):
    """run() pulls submissions only as workers free up and yields each result as soon as it is ready."""
    pulled = []

    def items():
        for index in range(6):
            pulled.append(index)
            yield f"lazy{index}", solution_source, case_names

    stream = bwrap_pool.run(items())
    try:
        first = next(stream)
        assert first.status == "ok"
        # One per worker, plus one replacing each result finished by the first yield: the freed workers start their
        # next jobs before the caller judges (at most one finished result per worker of 2).
        assert len(pulled) <= 2 * 2 < 6
        assert len(list(stream)) == 5
    finally:
        stream.close()  # a failed assertion must not leave the shared pool running this batch
