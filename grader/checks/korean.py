"""Korean particles chosen by the word they follow: 을/를, 이/가, 은/는, 과/와, 으로/로 (and the copula 이어야/여야).

A Hangul word is read by its last syllable's final consonant (받침). Digits are read as Korean numbers
(1 일, 3 삼, 10 십 …); Latin letters by how the word is usually said in Korean: an all-capital short word
letter by letter (GPU 지피유, RNN 알엔엔), other words by their ending (attn → 어텐 ends in ㄴ, mask → 마스크
ends in a vowel). Characters that are not read (`, ), ., spaces) are skipped.
"""
import re

HANGUL_FIRST, HANGUL_LAST = 0xAC00, 0xD7A3
FINALS = " ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ"  # a syllable's final consonant by its index
# (with a final consonant, without one): either form names the pair.
PAIRS = (("을", "를"), ("이", "가"), ("은", "는"), ("과", "와"), ("으로", "로"), ("이어야", "여야"))
# Final consonant of each digit as read alone: 영 일 이 삼 사 오 육 칠 팔 구 (None: ends in a vowel).
DIGITS = {"0": "ㅇ", "1": "ㄹ", "2": None, "3": "ㅁ", "4": None, "5": None, "6": "ㄱ", "7": "ㄹ", "8": "ㄹ", "9": None}
# A number ending in zeros: 십, 백, 천, 만.
TENS = {1: "ㅂ", 2: "ㄱ", 3: "ㄴ"}
# Letters said by name in an acronym whose name ends in a consonant: 엘 엠 엔 알.
LETTER_FINALS = {"L": "ㄹ", "M": "ㅁ", "N": "ㄴ", "R": "ㄹ"}
VOWELS = set("aeiou")
SKIPPED = re.compile(r"[^0-9A-Za-z\uAC00-\uD7A3]+$")


def final_sound(word):
    """The final consonant the word is read with ("ㄴ", "ㄹ", …), or None when it ends in a vowel sound."""
    text = SKIPPED.sub("", str(word))
    if not text:
        return None
    last = text[-1]
    if HANGUL_FIRST <= ord(last) <= HANGUL_LAST:
        final = (ord(last) - HANGUL_FIRST) % 28
        return FINALS[final] if final else None
    if last.isdigit():
        return _number_final(re.search(r"\d+$", text).group())
    return _latin_final(re.search(r"[A-Za-z]+$", text).group())


def _number_final(digits):
    stripped = digits.rstrip("0")
    if not stripped:
        return DIGITS["0"]
    zeros = len(digits) - len(stripped)
    return DIGITS[stripped[-1]] if zeros == 0 else TENS.get(zeros, "ㄴ")


def _latin_final(letters):
    """How an English word or acronym ends when said in Korean (a heuristic: good for code names)."""
    if letters.isupper() and len(letters) <= 4:
        return LETTER_FINALS.get(letters[-1])
    lower = letters.lower()
    if lower.endswith("ng"):
        return "ㅇ"
    if lower[-1] in "mn":
        return "ㄴ"
    if lower[-1] == "l":
        return "ㄹ"
    if lower.endswith("ck"):
        return "ㄱ"
    # p, t, k after a single short vowel: 스텝, 셋, 인풋; after a consonant or a long vowel: 마스크, 웨이트, 보트.
    if lower[-1] in "ptk" and len(lower) >= 2 and lower[-2] in VOWELS and (len(lower) < 3 or lower[-3] not in VOWELS):
        return "ㄱ"
    return None


def particle(word, pair):
    """The form of `pair` ("을", "를", "이/가", "으로" …) that follows `word`."""
    names = set(pair.split("/")) if "/" in pair else {pair}
    for with_final, without in PAIRS:
        if names & {with_final, without}:
            final = final_sound(word)
            if with_final == "으로":  # 로 after ㄹ too: 서울로
                return without if final in (None, "ㄹ") else with_final
            return without if final is None else with_final
    raise ValueError(f"unknown particle: {pair}")


def attach(word, pair):
    """`word` followed by the right form of `pair`: attach("src_attn", "을") == "src_attn을"."""
    return f"{word}{particle(word, pair)}"
