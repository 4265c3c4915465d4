"""Turn the document `python -m grader grade` writes for a submission into Gradescope's results.json.

Same scores and check results; only Gradescope's keys at the top (the grader's own ones move into
`extra_data`), HTML output, the instructor's visibility for hidden checks. Student stdout and stderr
are never included: under a hidden case they could print the hidden inputs.
"""
import html

from grader.checks.scoresheet import number as score_text

from . import inline_heatmap

EXTRA_KEYS = ("submission", "status", "sandbox", "seconds")


def _html(text):
    """Plain (Korean) text as HTML: escaped, line breaks kept."""
    return html.escape(text).replace("\n", "<br>\n")


def _test(test, number, hidden_visibility):
    """One check as a Gradescope test: the title as its name, the diagnosis as HTML."""
    title, _, diagnosis = test["output"].partition("\n")
    hidden = test["visibility"] != "visible"
    lines = [f"<p><strong>{html.escape(title)}</strong>{' (숨겨진 검사)' if hidden else ''}</p>"]
    if diagnosis:
        lines.append(f"<p>{_html(diagnosis)}</p>")
    return {
        "name": title,
        "number": str(number),
        "score": test["score"],
        "max_score": test["max_score"],
        "status": test["status"],
        "output": "\n".join(lines),
        "output_format": "html",
        "visibility": hidden_visibility if hidden else "visible",
        "extra_data": {"check": test["name"]},
    }


def _summary(document):
    """The submission-wide output: score, why everything scored 0 (if so), the heatmap."""
    lines = [f"<p><strong>점수: {score_text(document['score'])} / {score_text(document['max_score'])}</strong></p>"]
    if document.get("output"):
        lines.append(f"<p>{_html(document['output'])}</p>")
    if any(test["visibility"] != "visible" for test in document["tests"]):
        lines.append("<p>숨겨진 검사는 다른 입력으로 채점하며, 입력과 기준 값은 공개하지 않습니다.</p>")
    picture = inline_heatmap.table(document.get("picture"))
    if picture:
        lines.append(picture)
    return "\n".join(lines)


def results_json(document, hidden_visibility, execution_time):
    """Gradescope's results.json for one graded submission (`document` as `grader.grading.outputs.document`)."""
    return {
        "score": document["score"],
        "execution_time": round(execution_time, 1),
        "output": _summary(document),
        "output_format": "html",
        "stdout_visibility": "hidden",
        "tests": [_test(test, number, hidden_visibility) for number, test in enumerate(document["tests"], 1)],
        "extra_data": {key: document.get(key) for key in EXTRA_KEYS} | {"max_score": document["max_score"]},
    }


def failure_json(message, execution_time):
    """results.json when grading itself could not finish (never the student's fault): 0 points, a Korean note."""
    return {
        "score": 0.0,
        "execution_time": round(execution_time, 1),
        "output": f"<p>{_html(message)}</p>",
        "output_format": "html",
        "stdout_visibility": "hidden",
        "tests": [],
        "extra_data": {"status": "grader_error"},
    }
