"""The `.py` track: `exercises/<chapter>/` with the stub module, the demo, visible tests and the text."""
from . import chaptertext, codechange, headers, shipping
from .regions import clear_solutions

STUDENT_NOTE = "# 학생용: TODO 표시가 있는 함수의 본문을 채우세요. 채점은 이 파일로 합니다.\n"
FRIENDLY = "import selfcheck.friendly  # noqa: F401  아직 작성하지 않은 함수는 한국어 한 줄로 알려 줍니다\n"
# pytest reads it before test_visible.py: an ImportError there would come after pytest's traceback.
CONFTEST = '''"""pytest가 test_visible.py보다 먼저 읽는 파일: selfcheck를 불러올 수 없으면 그 이유만 한국어로 보여 주고 멈춥니다."""
import pytest


def pytest_configure(config):
    try:
        import selfcheck  # noqa: F401
    except ImportError as error:
        pytest.exit(str(error), returncode=1)
'''


def files(chapter, package):
    """{path under `exercises/`: bytes} of the chapter's exercise folder and the framework files its `selfcheck`
    package (`package`, {`selfcheck/…`: bytes}) takes from the shared folder."""
    source = f"solutions/{chapter.id}"
    out = {
        "transformer.py": headers.python(f"{source}/transformer.py") + STUDENT_NOTE
        + clear_solutions(chapter.module.read_text(encoding="utf-8")),
        "demo.py": headers.python(f"{source}/demo.py") + FRIENDLY + chapter.demo.read_text(encoding="utf-8"),
        "test_visible.py": visible_tests(chapter),
        "conftest.py": headers.python("grader/publish/exercise.py") + CONFTEST,
        "README.md": readme(chapter),
    }
    out = {f"{chapter.id}/{name}": text.encode() for name, text in out.items()}
    out.update(shipping.split_package(chapter, package))
    return out


def visible_tests(chapter):
    """pytest tests that run each visible check through `selfcheck.verify`, like the notebook's test cells."""
    checks = [check for check in chapter.checks.checks if check.visible]
    names = "".join(f'    "{check.name}",  # {check.points:g}점 — {check.title}\n' for check in checks)
    return (
        headers.python("grader/checks (visible checks)")
        + '"""공개 검사: `python -m pytest test_visible.py`. 노트북의 테스트 셀, `python -m selfcheck`와 같은 검사입니다."""\n'
        "import pytest\n\n"
        "import transformer\n"
        "from selfcheck import verify\n\n"
        f"VISIBLE_CHECKS = [\n{names}]\n\n\n"
        '@pytest.mark.parametrize("check", VISIBLE_CHECKS)\n'
        "def test_visible_check(check):\n"
        '    """transformer.py가 공개 검사 하나를 통과한다."""\n'
        f'    verify("{chapter.id}", check, transformer)\n'
    )


def readme(chapter):
    """The chapter text for the `.py` track, with the code change and the commands filled in."""
    slots = {
        "diff": codechange.markdown(chapter),
        "solution": "## 작성할 코드\n\n`transformer.py`를 열고 `TODO` 표시가 있는 함수의 본문을 채운다. "
        "함수 이름, 인자, docstring은 그대로 둔다.\n",
        "demo": "```bash\npython demo.py\n```\n",
        "checks": "```bash\npython -m selfcheck                  # 공개 검사 표와 진단 (원인마다 한 번, 오류가 난 줄까지)\n"
        "python -m selfcheck --json           # Gradescope results.json 형식\n"
        "python -m pytest test_visible.py    # 같은 검사를 pytest로\n```\n\n"
        "끝나지 않는 코드(무한 루프 등)는 `python -m selfcheck`가 2분 뒤 멈추고 알려 준다 (`--timeout 초`).\n",
    }
    body = "\n".join(text if kind == "markdown" else slots[text] for kind, text in chaptertext.parts(chapter))
    return headers.markdown(f"solutions/{chapter.id}/chapter.md") + body
