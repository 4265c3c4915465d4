"""The instructor's review lists: code that reaches into the grader, and unusually similar submissions."""
import pytest

from grader import paths
from grader.report import review, similarity

pytestmark = pytest.mark.report

REACHING = {
    "from grader.checks import ch03_probe": "채점기",
    "import selfcheck": "채점기",
    "for name, module in list(sys.modules.items()):": "sys.modules",
    "objects = gc.get_objects()": "gc",
    "caller = sys._getframe(1).f_globals": "프레임",
    "frame = inspect.currentframe().f_back": "프레임",
    "import ctypes": "ctypes",
    "pid = os.fork()": "fork",
    "import subprocess": "fork",
    "__builtins__['print'] = quiet": "내장",
    "json.dumps = forged": "인코딩",
    "os.write(3, frame)": "결과 통로",
    "channel = os.dup(3)": "결과 통로",
    "with open(3, 'wb') as pipe:": "결과 통로",
    "memory = open(f'/proc/{pid}/mem', 'rb')": "결과 통로",
}


@pytest.mark.parametrize("line,word", REACHING.items())
def test_each_way_into_the_grader_is_listed_with_its_line(line, word):
    """Each pattern is found on its own line, numbered as in the source, with a Korean reason."""
    source = "import torch\n\n" + line + "\n"
    found = review.scan(source)
    assert [finding.line for finding in found] == [3]
    assert word in found[0].reason and found[0].code == line


def test_comments_are_not_code():
    """A comment that mentions ctypes is not listed."""
    assert review.scan("# ctypes would be cheating\nx = 1\n") == []


@pytest.mark.parametrize("chapter", sorted(path.name for path in paths.SOLUTIONS.iterdir() if path.is_dir()))
def test_solutions_and_stubs_are_not_suspicious(chapter):
    """Neither the solution nor the stub of any chapter is on the review list (no noise for honest work)."""
    for path in (paths.SOLUTIONS / chapter / "transformer.py", paths.EXERCISES / chapter / "transformer.py"):
        assert review.scan(path.read_text(encoding="utf-8")) == [], path


CHAPTER = "03_multihead"
SHARED_DEVIATION = '''

def _split_heads(x, heads, width):
    """Reshape a (batch, length, model) tensor into per-head slices, keeping memory contiguous for speed."""
    batch_size, length = x.shape[0], x.shape[1]
    reshaped = x.contiguous().reshape(batch_size, length, heads, width)
    swapped = reshaped.permute(0, 2, 1, 3).contiguous()
    return swapped


def _merge_heads(x, heads, width):
    """Undo _split_heads: (batch, heads, length, width) back to (batch, length, heads * width)."""
    batch_size, length = x.shape[0], x.shape[2]
    swapped = x.permute(0, 2, 1, 3).contiguous()
    return swapped.reshape(batch_size, length, heads * width)
'''
OTHER_DEVIATION = '''

def debug_shapes(*tensors):
    """Print the shape of every tensor given, one per line, with its position in the argument list."""
    for position, tensor in enumerate(tensors):
        print(f"argument {position}: shape={tuple(tensor.shape)} dtype={tensor.dtype} device={tensor.device}")
    return len(tensors)
'''


@pytest.fixture(scope="module")
def solution():
    lines = (paths.SOLUTIONS / CHAPTER / "transformer.py").read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(line for line in lines if "SOLUTION" not in line)


def test_shared_deviations_pair_up(solution):
    """Two submissions that add the same code are a pair; the solution itself and the stub are boilerplate, so two
    verbatim solutions and a solution with its own helper pair with nobody."""
    sources = {"a": solution + SHARED_DEVIATION, "b": solution + SHARED_DEVIATION.replace("swapped", "moved"),
               "c": solution, "d": solution, "e": solution + OTHER_DEVIATION}
    found = similarity.pairs(sources, CHAPTER)
    assert [(pair.first, pair.second) for pair in found] == [("a", "b")]
    assert min(found[0].similarity) > 0.5


def test_threshold_is_the_instructors(solution):
    """A threshold above the pair's similarity lists nothing."""
    sources = {"a": solution + SHARED_DEVIATION, "b": solution + SHARED_DEVIATION}
    assert similarity.pairs(sources, CHAPTER, threshold=0.5)
    assert similarity.pairs(sources, CHAPTER, threshold=1.01) == []


def test_side_by_side_marks_the_shared_code(solution):
    """The HTML shows both sources with the shared stretch in <mark>, escaped."""
    sources = {"a": solution + SHARED_DEVIATION, "b": solution + SHARED_DEVIATION}
    pair = similarity.pairs(sources, CHAPTER)[0]
    page = similarity.side_by_side(pair, sources, {"a": "kim", "b": "lee"})
    assert page.count("<pre>") == 2 and "<mark>" in page and "_split_heads" in page and "kim" in page


def test_early_chapters_have_no_similarity_section():
    """Chapters 01 and 02 are too short for similarity to mean anything."""
    assert not similarity.applies("01_attention") and not similarity.applies("02_masking")
    assert similarity.applies(CHAPTER)
