"""Find English seams in what students and instructors read: run-status codes, English log words, HTML entities."""
import html
import re

from grader.report.texts import STATUS

# Words a Korean page or log must not show outside code: the run statuses' codes and the English progress log.
ENGLISH = (*STATUS, "passed", "failed", "Epoch Step", "Accumulation Step", "Tokens / Sec", "Learning Rate", "Loss:")
WORD = re.compile(r"(?<![A-Za-z_])(" + "|".join(re.escape(word) for word in ENGLISH) + r")(?![A-Za-z_])")
ENTITY = re.compile(r"&#?\w+;")
CODE = re.compile(r"(`+).+?\1|<code>.*?</code>|<pre>.*?</pre>|<(style|script|svg)\b.*?</\2>", re.DOTALL)
TAG = re.compile(r"<[^>]+>")


def english_words(text, markup=False):
    """The English status/log words in `text` outside code spans (`markup`: an HTML page, read as its visible text)."""
    text = CODE.sub(" ", text)
    if markup:
        text = html.unescape(TAG.sub(" ", text))
    return sorted(set(WORD.findall(text)))


def entities(markdown):
    """HTML entities in a Markdown text (outside code spans, where they would show as written)."""
    return sorted(set(ENTITY.findall(CODE.sub(" ", markdown))))
