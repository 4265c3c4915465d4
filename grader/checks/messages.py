"""The Korean messages every chapter shares: unfinished code, missing names, errors, what a call returned.

One place for them, so the wording (and the file a student is told to edit) changes in one line.
"""

STUDENT_FILE = "transformer.py"  # where the student writes the chapter's code


def stub(what, todo="TODO"):
    """The student has not written the chapter's code yet (NotImplementedError)."""
    return f"{what}(NotImplementedError). {STUDENT_FILE}의 {todo}를 채우세요."


def missing(names, stopped_at=None, error_type=None):
    """A function the checks call is not defined; `stopped_at`: the error a notebook's run stopped at (its cells
    below did not run), described (`errortext.described`), of type `error_type`."""
    if stopped_at:
        return (f"{names} 함수를 찾을 수 없습니다: {stopped_at}에서 오류가 나 실행이 거기서 멈췄고, 그 아래 코드 셀은 "
                "실행되지 않았습니다. 노트북의 코드 셀이 위에서부터 차례로 오류 없이 실행되는지 먼저 확인하세요."
                + error_hint(error_type))
    return f"{names} 함수를 찾을 수 없습니다. 함수 이름과 들여쓰기를 확인하세요."


def stopped_name(error, stopped_at):
    """A NameError for a name the notebook's cells define below where its run stopped."""
    return (f"{error} 이 이름은 {stopped_at}에서 오류가 나 실행이 멈춘 뒤의 코드 셀에서 만들어지므로 정의되지 "
            "않았습니다. 노트북의 코드 셀이 위에서부터 차례로 오류 없이 실행되는지 먼저 확인하세요.")


def stopped_run(stopped_at, error_type=None):
    """The note for a notebook whose run stopped at a cell that raised (Jupyter's Run All stops there too)."""
    return (f"{stopped_at}에서 오류가 나 실행이 거기서 멈췄습니다. Jupyter의 Run All처럼 그 아래 코드 셀은 실행하지 "
            "않고, 그 위에서 만든 함수와 클래스로 채점했습니다." + error_hint(error_type))


# After a ModuleNotFoundError: the grader runs the submitted file alone, with the course's packages only.
MODULE_HINT = (f" 채점과 자가 점검은 제출하는 {STUDENT_FILE}(또는 노트북) 하나만 실행합니다: 같은 폴더나 Drive에 둔 다른 .py "
               "파일, 따로 설치한 패키지는 import할 수 없습니다. 필요한 코드는 제출하는 파일 안에 직접 쓰세요.")


# After an EOFError: nothing is typed in while grading (the sandbox's stdin is empty, and so is the self-check's).
INPUT_HINT = " 채점과 자가 점검에는 키보드 입력이 없어서 input()이 EOFError를 냅니다. 제출하는 파일에서 input() 호출을 지우세요."


def given_changed(names):
    """The note when the student's copy of units the chapter ships written is not the course's (`given.py`)."""
    shown = ", ".join(f"`{name}`" for name in names)
    return (f"앞 장에서 주어진 코드 가운데 {shown}이(가) 과정의 코드와 다릅니다(이 장에서 고치지 않아도 되는 코드입니다). "
            "이 장의 검사는 그 차이 때문에 틀리지 않도록 과정의 코드로도 채점합니다: 이 장에서 쓴 부분만 점수에 들어갑니다. "
            "일부러 바꾼 것이 아니라면 이 장의 데모와 다음 장을 위해 과정의 코드로 되돌리세요.")


def error_hint(error_type):
    """MODULE_HINT after a ModuleNotFoundError, INPUT_HINT after an EOFError, else nothing."""
    return {"ModuleNotFoundError": MODULE_HINT, "EOFError": INPUT_HINT}.get(error_type, "")


def load_error(detail, error_type=None):
    return (f"코드를 불러오는 중 오류가 났습니다 ({detail}). 파일 전체가 오류 없이 실행되는지 먼저 확인하세요."
            + error_hint(error_type))


UNREADABLE_OUTCOME = "채점 결과를 읽을 수 없습니다."
TOO_LARGE = "돌려준 텐서가 너무 크거나 복소수라서 비교할 수 없습니다."
NOT_FINITE = "결과에 NaN이나 inf가 있습니다."
NUMPY = "numpy 배열을 돌려줍니다. torch 텐서로 계산해야 autograd와 dtype이 유지됩니다."
IN_PLACE = "입력 텐서를 제자리(in-place)에서 바꿨습니다(`/=`, `.div_()`, `masked_fill_` 등). 새 텐서를 만들어 계산하세요."


def tuple_of(names):
    """'(출력, p_attn)' for the names of the values a function returns."""
    return "(" + ", ".join(names) + ")"


def only_one(names, which):
    """A tuple was expected; only `which` (one of `names`) came back."""
    label = f"{which} 텐서" if which == names[0] else which
    return f"{tuple_of(names)} 두 개를 튜플로 돌려줘야 하는데 {label} 하나만 돌려줍니다. return {', '.join(_code(n) for n in names)}"


def not_a_tuple(names, kind):
    return f"{tuple_of(names)} 튜플을 돌려줘야 하는데 {kind} 값을 돌려줍니다."


def wrong_length(names, length):
    return f"{tuple_of(names)} 두 개를 돌려줘야 하는데 {length}개를 돌려줍니다."


def not_tensors(names):
    return f"{tuple_of(names)}은 둘 다 torch 텐서여야 합니다."


def swapped(names):
    return f"반환 순서가 바뀌었습니다. {tuple_of(names)} 순서로 돌려주세요."


def not_a_tensor(function, kind):
    return f"{function}는 torch 텐서를 돌려줘야 하는데 {kind} 값을 돌려줍니다."


def _code(name):
    return {"출력": "output"}.get(name, name)


# Notes when a module changed torch's global defaults at its top (`execute.course_defaults`).
DEFAULT_DTYPE_CHANGED = ("코드가 torch의 기본 dtype을 {dtype}(으)로 바꿨습니다(torch.set_default_dtype). 채점은 과제의 기본값 "
                         "float32로 되돌려서 합니다.")
GRADIENTS_OFF = ("코드가 기울기 계산을 꺼 두었습니다(torch.set_grad_enabled(False) 등). 채점은 기울기 계산을 켠 채로 합니다: "
                 "기울기를 끄는 것은 필요한 곳에서만 torch.no_grad()로 하세요.")
