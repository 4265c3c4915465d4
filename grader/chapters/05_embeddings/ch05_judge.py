"""Chapter 05 checks: `Embeddings` (lut × √d_model) and `PositionalEncoding` (the `pe` buffer, sliced, dropout).

Judge side. Structures are compared with the solution's (`module_judge`); outputs with the
reference's. `PositionalEncoding` is judged freshly built (a loaded state_dict would replace the
student's `pe`). A wrong output names the most likely bug by running "bug models" — another scale,
sin and cos swapped or concatenated, the sign of div_term flipped, dropout elsewhere — on the same
weights, input and RNG seed as the probe, and matching the student's numbers.
"""
import itertools
import math
import re

import torch
import torch.nn.functional as F

from . import ch05_probe as probe
from . import messages, module_judge, modules
from .bugmodels import BugModels, ModelCode
from .calls import explain_error
from .compare import close
from .contract import Chapter
from .framework import Check, Finding, each_case
from .module_judge import parameter_count_problem, same_output, seeded

BUGS = {
    "stub": messages.stub("아직 작성하지 않은 부분이 있습니다", "TODO(05)"),
    "not_module": "Embeddings와 PositionalEncoding은 nn.Module을 상속해야 합니다. class 이름(nn.Module):로 정의하고 "
    "__init__에서 super().__init__()을 부르세요.",
    "no_super": "nn.Module의 __init__이 불리기 전에 모듈이나 buffer를 self에 넣었습니다. super().__init__()을 부르지 않았거나 "
    "너무 늦게 불렀습니다. __init__의 첫 줄에서 super().__init__()을 부른 뒤에 속성을 만드세요.",
    "names": module_judge.NAMES_DIFFER,
    "emb_no_scale": "Embeddings의 출력에 √d_model을 곱하지 않았습니다. 원문은 임베딩 벡터에 √d_model을 곱해, "
    "더해질 위치 인코딩(성분이 -1~1)보다 크기가 작아지지 않게 합니다: self.lut(x) * math.sqrt(self.d_model).",
    "emb_times_d_model": "Embeddings의 출력에 √d_model이 아니라 d_model을 곱했습니다. 제곱근을 씌우세요: "
    "math.sqrt(self.d_model).",
    "emb_divided": "Embeddings의 출력을 √d_model로 나눴습니다. √d_model을 곱해야 합니다.",
    "emb_other_scale": "Embeddings의 출력이 lut(x)에 √d_model이 아닌 다른 수를 곱한 값입니다. 곱할 수는 임베딩 벡터의 "
    "차원 d_model의 제곱근입니다(vocab이나 입력의 토큰 수가 아닙니다). d_model을 __init__에서 self.d_model로 받아 두고 "
    "forward에서 그 제곱근을 곱하세요.",
    "pe_not_registered": "`pe`가 state_dict에 없습니다. 텐서를 self.pe = pe처럼 속성에 넣기만 하면 모델과 함께 "
    "저장·복원되지 않고 .to(device)로 옮겨지지도 않습니다. self.register_buffer(\"pe\", pe)로 등록하세요.",
    "pe_renamed": "위치 인코딩 표를 `pe`가 아닌 다른 이름으로 등록했습니다. 이름 pe도 채점 기준입니다(다음 장들과 저장된 "
    "state_dict가 이 이름으로 찾습니다). register_buffer의 첫 인자를 \"pe\"로 하고 forward에서도 self.pe를 쓰세요.",
    "pe_not_persistent": "`pe`를 persistent=False로 등록해 state_dict에 없습니다. buffer라서 .to(device)로는 함께 옮겨지지만 "
    "state_dict로 모델을 저장·복원할 때 빠집니다. 원문처럼 self.register_buffer(\"pe\", pe)로 등록하세요.",
    "pe_parameter": "`pe`가 nn.Parameter로 등록되어 있습니다. 출력은 같아도 parameters()에 들어가서 optimizer가 "
    "위치 인코딩을 학습 대상으로 삼습니다(requires_grad=False로 막아도 parameter 목록과 개수는 달라집니다). "
    "pe는 계산해 둔 고정 값이므로 self.register_buffer(\"pe\", pe)로 buffer로 등록하세요.",
    "dropout_module": "PositionalEncoding에 p=dropout인 nn.Dropout(self.dropout)이 없거나 비율이 다릅니다. "
    "self.dropout = nn.Dropout(p=dropout)으로 만드세요.",
    "pe_swapped": "sin과 cos의 자리가 바뀌었습니다. 짝수 열(0, 2, 4, …)이 sin, 홀수 열(1, 3, 5, …)이 cos입니다. "
    "그래서 위치 0의 행은 [0, 1, 0, 1, …]입니다.",
    "pe_one_function": "짝수 열과 홀수 열에 같은 함수를 썼습니다(둘 다 sin이거나 둘 다 cos). 짝수 열(0, 2, 4, …)은 sin, "
    "홀수 열(1, 3, 5, …)은 cos입니다: pe[:, 0::2] = sin(…), pe[:, 1::2] = cos(…).",
    "pe_concatenated": "sin과 cos를 번갈아 끼우지 않고 이어 붙였습니다(앞 절반 sin, 뒤 절반 cos). 같은 주파수의 "
    "sin과 cos가 이웃한 두 열(2i, 2i+1)에 들어가야 합니다: 짝수 열은 pe[:, 0::2], 홀수 열은 pe[:, 1::2]로 고르세요.",
    "pe_div_sign": "div_term 지수의 부호가 반대입니다. exp(+2i·log(10000)/d_model)은 뒤 열로 갈수록 주파수가 "
    "10000배까지 커집니다. 뒤 열일수록 천천히 돌도록 음수 지수 exp(-2i·log(10000)/d_model), 곧 "
    "1/10000^(2i/d_model)을 쓰세요.",
    "pe_cos_exponent": "홀수 열(cos)의 주파수를 그 열 번호 2i+1로 계산했습니다. 같은 주파수의 sin과 cos가 짝을 이루므로 "
    "2i번 열(sin)과 2i+1번 열(cos)은 같은 주파수 1/10000^(2i/d_model)을 써야 합니다: 지수에는 짝의 짝수 번호 2i가 들어갑니다.",
    "pe_integer": "pe 표를 정수 dtype(torch.long 등)으로 만들어서 sin·cos 값을 넣을 때 0 쪽으로 잘려 거의 모두 0이 "
    "되었습니다(정확히 1인 cos(0) 자리만 1로 남습니다). pe 표는 실수(float32) 텐서여야 합니다: "
    "torch.zeros(max_len, d_model)처럼 dtype 없이 만들고, dtype=torch.long이나 정수 텐서(arange 결과)의 dtype을 "
    "물려받지 마세요.",
    "pe_positions_normalised": "위치 pos를 max_len 등으로 나눠 0~1 사이로 정규화했습니다. 각도는 pos · div_term이고 "
    "pos는 0, 1, 2, … 정수 위치 그대로 씁니다. 나누면 열마다 거의 돌지 않아 위치끼리 잘 구별되지 않고, 같은 위치의 "
    "값이 max_len에 따라 달라집니다.",
    "pe_positions_from_one": "위치를 1부터 셌습니다: 표의 i번째 행이 위치 i+1의 값이라 모든 행이 한 칸씩 밀렸습니다. "
    "첫 행은 위치 0의 값, 곧 sin(0) = 0과 cos(0) = 1이 번갈아 나오는 [0, 1, 0, 1, …]이어야 합니다: "
    "position = torch.arange(0, max_len)처럼 0부터 세세요.",
    "pe_no_exp": "div_term에 exp를 씌우지 않았습니다. -(2i)·log(10000)/d_model은 주파수의 로그이므로, 그대로 쓰면 "
    "주파수가 0과 음수가 됩니다(첫 두 열은 위치와 상관없이 0과 1). torch.exp(…)로 주파수 1/10000^(2i/d_model)을 만드세요.",
    "pe_odd_exponent": "div_term의 지수에 짝수 번호 2i = 0, 2, 4, … 대신 홀수 번호 1, 3, 5, …를 썼습니다. 그러면 첫 두 열의 "
    "주파수부터 1이 아닙니다. torch.arange(0, d_model, 2)처럼 0부터 2씩 세세요.",
    "pe_frequencies": "첫 두 열(주파수 1인 sin, cos)은 맞는데 뒤 열들이 다릅니다. 열 쌍마다의 주파수 div_term을 "
    "확인하세요: 2i번과 2i+1번 열의 주파수는 1/10000^(2i/d_model)입니다.",
    "position_not_column": "pe 표를 만들다가 모양이 맞지 않아 오류가 났습니다: 위치 position(max_len개)과 주파수 "
    "div_term(d_model/2개)을 곱해 (max_len, d_model/2) 표를 만들려면 position이 (max_len, 1) 열 모양이어야 합니다. "
    "1차원 arange에 unsqueeze로 뒤쪽 축을 하나 더해 열로 세우세요.",
    "div_term_length": "pe 표를 만들다가 모양이 맞지 않아 오류가 났습니다: pe[:, 0::2]와 pe[:, 1::2]는 d_model/2개 열인데 "
    "sin·cos 결과의 열 수가 다릅니다. div_term은 짝수 열 번호 2i = 0, 2, 4, …마다 하나씩, 곧 d_model/2개여야 합니다"
    "(arange를 2씩 건너뛰세요).",
    "max_len_ignored": "PositionalEncoding이 max_len 인자를 쓰지 않습니다: max_len을 주어도 pe 표의 행 수가 그대로입니다. "
    "pe 표는 (1, max_len, d_model)이 되도록 생성자의 max_len으로 만드세요.",
    "pe_not_added": "출력이 입력과 같습니다. 위치 인코딩 pe를 입력 x에 더해야 합니다.",
    "pe_one_position": "모든 위치에 같은 위치 인코딩 한 줄을 더했습니다(self.pe[:, x.size(1)]나 self.pe[:, 0]처럼 한 위치만 "
    "골랐습니다). 위치마다 자기 줄이 더해지도록 입력 길이만큼 잘라 더하세요: self.pe[:, :x.size(1)].",
    "pe_not_sliced": "pe를 입력 길이로 자르지 않아 (1, max_len, d_model)짜리 표 전체를 더하려 했습니다. 자르는 축도 "
    "확인하세요: 맨 앞 축(크기 1, batch 축)을 self.pe[:x.size(1)]처럼 자르면 표가 그대로 남습니다. "
    "입력의 토큰 수 x.size(1)만큼, 곧 self.pe[:, :x.size(1)]만 더하세요.",
    "pe_table_shape": "pe 표의 모양이 (1, max_len, d_model)이 아니라서, 토큰 수만큼 잘라도 (batch, 토큰 수, d_model)인 "
    "입력 x에 더할 수 없습니다. (max_len, d_model) 표에 pe.unsqueeze(0)으로 맨 앞에 크기 1인 batch 축을 더하세요"
    "(unsqueeze(1)은 가운데에 축을 넣습니다).",
    "pe_scaled_input": "PositionalEncoding이 입력 x에 어떤 수를 곱한 뒤 pe를 더했습니다(출력과 기준의 차이가 x에 "
    "비례합니다). √d_model을 곱하는 일은 Embeddings가 합니다. PositionalEncoding은 x에 pe를 더하고 dropout만 적용하세요.",
    "pe_dtype": "출력의 dtype이 입력(float32)과 다릅니다. pe 표를 float64처럼 다른 dtype으로 만들어서 x + pe도 그 dtype이 "
    "되었습니다. 그러면 다음 층의 nn.Linear(float32 가중치)에서 dtype 오류가 납니다. pe 표를 float32로 만들거나 "
    "등록하기 전에 .float()로 바꾸세요.",
    "pe_sliced_by_batch": "pe를 x.size(0)(batch 크기)로 잘랐습니다. 입력은 (batch, 토큰 수, d_model)이므로 "
    "토큰 수 x.size(1)로 잘라야 합니다.",
    "pe_sliced_by_d_model": "pe를 x.size(-1)(d_model)로 잘랐습니다. 입력은 (batch, 토큰 수, d_model)이므로 "
    "토큰 수 x.size(1)만큼, 곧 self.pe[:, :x.size(1)]만 더하세요.",
    "dropout_missing": "train 모드인데 결과가 dropout 없는 결과와 같습니다. pe를 더한 뒤 self.dropout을 적용하세요.",
    "dropout_on_pe": "dropout을 pe에만 적용하고 x에 더했습니다. x + pe 전체에 dropout을 적용하세요.",
    "dropout_before_add": "dropout을 x에 먼저 적용한 뒤 pe를 더했습니다. pe를 더한 뒤(x + pe) dropout을 적용하세요.",
    "dropout_twice": "dropout을 두 번 적용했습니다. x + pe에 한 번만 적용하세요.",
    "dropout_in_eval": "eval 모드인데 dropout이 값을 지웠습니다. F.dropout(x, p)는 training 인자를 주지 않으면 늘 "
    "값을 지웁니다. __init__에서 만든 self.dropout(nn.Dropout)을 쓰면 model.eval()일 때 저절로 꺼집니다.",
}

# ----------------------------------------------------------------------------- bug models
### BEGIN BUG MODELS

SCALES = {"sqrt": (None, math.sqrt), "none": ("emb_no_scale", lambda d: 1.0),
          "d_model": ("emb_times_d_model", float), "divided": ("emb_divided", lambda d: 1 / math.sqrt(d))}
TABLES = {"interleaved": None, "swapped": "pe_swapped", "concatenated": "pe_concatenated", "sign": "pe_div_sign",
          "none": "pe_not_added", "sin_only": "pe_one_function", "cos_only": "pe_one_function",
          "cos_own_exponent": "pe_cos_exponent", "integer": "pe_integer", "normalised": "pe_positions_normalised",
          "normalised_linspace": "pe_positions_normalised", "from_one": "pe_positions_from_one",
          "no_exp": "pe_no_exp", "odd_exponent": "pe_odd_exponent"}
# Tables modelled with the solution's dropout only (each bug alone; the grid above pairs every table with every place).
SOLUTION_DROPOUT_ONLY = ("from_one", "no_exp", "odd_exponent")
# "in_eval": F.dropout(x, p) without training=, which drops in eval mode too (a model of eval cases only: in train mode
# it is the solution's own dropout); "twice": dropout(dropout(x + pe)); "before_and_after": dropout(dropout(x) + pe).
PLACES = {"after_add": None, "none": "dropout_missing", "on_pe": "dropout_on_pe", "before_add": "dropout_before_add",
          "in_eval": "dropout_in_eval", "twice": "dropout_twice", "before_and_after": "dropout_twice"}


def pe_rows(length, d_model, table="interleaved", max_len=5000):
    """The first `length` rows of a positional-encoding table of `max_len` rows built the `table` way,
    (length, d_model). "integer": the table made as an integer tensor (torch.long), so each sin and cos is truncated
    towards 0; "normalised": positions divided by max_len ("normalised_linspace": linspace(0, 1, max_len));
    "from_one": positions 1, 2, …; "no_exp": div_term without its exp; "odd_exponent": exponents 1, 3, 5, …"""
    if table == "none":
        return torch.zeros(length, d_model)
    if table == "integer":
        return pe_rows(length, d_model, max_len=max_len).trunc()
    exponent = torch.arange(1 if table == "odd_exponent" else 0, d_model, 2) * (math.log(10000.0) / d_model)
    frequency = -exponent if table == "no_exp" else torch.exp(exponent if table == "sign" else -exponent)
    position = torch.arange(1 if table == "from_one" else 0, length + (table == "from_one")).unsqueeze(1)
    if table == "normalised":
        position = position / max_len
    elif table == "normalised_linspace":
        position = torch.linspace(0, 1, max_len)[:length].unsqueeze(1)
    angle = position * frequency
    sin, cos = torch.sin(angle), torch.cos(angle)
    if table == "cos_own_exponent":  # column 2i+1 at its own index: 1/10000^((2i+1)/d_model)
        odd = torch.exp(-torch.arange(1, d_model, 2) * (math.log(10000.0) / d_model))
        cos = torch.cos(torch.arange(length).unsqueeze(1) * odd)
    if table == "concatenated":
        return torch.cat([sin, cos], dim=-1)
    pair = {"swapped": (cos, sin), "sin_only": (sin, sin), "cos_only": (cos, cos)}.get(table, (sin, cos))
    return torch.stack(pair, dim=-1).reshape(length, d_model)


def positional(spec, x, table, place):
    """PositionalEncoding's forward with one way of building the table and one place for dropout."""
    dropout = torch.nn.Dropout(spec.dropout).train(spec.train or place == "in_eval")
    rows = pe_rows(x.size(1), spec.d_model, table, spec.max_len or 5000).unsqueeze(0)
    if place == "on_pe":
        return x + dropout(rows)
    if place == "before_add":
        return dropout(x) + rows
    if place == "twice":
        return dropout(dropout(x + rows))
    if place == "before_and_after":
        return dropout(dropout(x) + rows)
    added = x + rows
    return added if place == "none" else dropout(added)


def embedding_weights(spec):
    """The `lut.weight` the probe loads into an Embeddings named like the solution, drawn again from the seed."""
    return modules.seeded_weights([("lut.weight", [spec.vocab, spec.d_model])], spec.seed)["lut.weight"]


def _models(case):
    """(label, model) pairs for `case`, the solution's own way first; none on a structure case (no output)."""
    if probe.CASES[case].kind == "module":
        return []
    if probe.CASES[case].cls == probe.EMBEDDINGS:
        return [(SCALES[scale][0], ("scale", scale)) for scale in SCALES]
    places = [place for place in PLACES if not (place == "in_eval" and probe.CASES[case].train)]
    pairs = [(t, p) for t, p in itertools.product(TABLES, places) if t not in SOLUTION_DROPOUT_ONLY or p == "after_add"]
    return [(tuple(bug for bug in (TABLES[t], PLACES[p]) if bug) or None, ("pe", t, p)) for t, p in pairs]


def _call(model, case, inputs):
    """Run one bug model as the probe ran the student's module: same input, weights and RNG seed."""
    spec = probe.CASES[case]
    if model[0] == "scale":
        return F.embedding(inputs[0], embedding_weights(spec)) * SCALES[model[1]][1](spec.d_model)
    return seeded(lambda: positional(spec, inputs[0], *model[1:]), spec.seed)


MODEL_CODE = ModelCode(models=_models, call=_call)
### END BUG MODELS

MODELS = BugModels("ch05", same=same_output, bugs=BUGS)

# ----------------------------------------------------------------------------- reading a case


def pe_shape(structure):
    """The shape of `pe` in a recorded structure, or None."""
    return dict((name, list(shape)) for name, shape in structure["state_dict"]).get("pe")


def build_problem(spec, message):
    """The bug behind a size mismatch while the table was built (the class could not be made): a flat position
    times div_term ("The size of tensor a (max_len) must match ... b (d_model/2)"), or a div_term whose length is not
    d_model/2 ("The expanded size of the tensor (d_model/2) must match the existing size (n)")."""
    sizes = [int(n) for n in re.findall(r"\((\d+)\)", message)]
    if "must match the size of tensor" in message and set(sizes) == {spec.max_len or 5000, spec.d_model // 2}:
        return BUGS["position_not_column"]
    if "expanded size of the tensor" in message and sizes[:1] == [spec.d_model // 2]:
        return BUGS["div_term_length"]
    return None


def broadcast_problem(evidence, case, error):
    """The bug behind a size mismatch: while building the table (no structure recorded), or in forward when pe was
    cut wrongly ("The size of tensor a (L) must match the size of tensor b (n)") or the table has another shape."""
    spec = probe.CASES[case]
    message = error.get("message", "")
    if spec.cls != probe.POSITIONAL or "must match" not in message:
        return None
    trace = evidence.trace(case)
    if "structure" not in trace:
        return build_problem(spec, message)
    if "must match the size of tensor" not in message:
        return None
    expected = pe_shape(evidence.reference(case)["structure"])
    found = pe_shape(trace["structure"])
    if found and expected and (len(found) != len(expected) or found[0] != expected[0]):
        return BUGS["pe_table_shape"]
    sizes = {int(n) for n in re.findall(r"\((\d+)\)", message)}
    if (spec.max_len or 5000) in sizes:
        return BUGS["pe_not_sliced"]
    if spec.shape[0] in sizes:
        return BUGS["pe_sliced_by_batch"]
    if spec.shape[-1] in sizes:
        return BUGS["pe_sliced_by_d_model"]
    return None


# An exception's message → the bug (every chapter class is an nn.Module).
ERROR_RULES = (("before Module.__init__() call", "no_super"),)


def error_diagnosis(evidence, case, error):
    """A Korean diagnosis of an exception the student's code raised on `case`."""
    if error["type"] == "NotAModule":
        return BUGS["not_module"]
    return broadcast_problem(evidence, case, error) or explain_error(evidence, case, error, BUGS, rules=ERROR_RULES)


def registration_problem(case, expected, found):
    """Korean: `pe` kept outside the state_dict, or registered under another name, or None (only PositionalEncoding
    has a `pe`). A table of pe's shape under another name (a buffer or a parameter) is a renamed pe."""
    names = {name for name, _ in found["state_dict"]}
    wanted = dict(expected["state_dict"])
    if probe.CASES[case].cls == probe.POSITIONAL and "pe" not in names and "pe" in wanted:
        buffers = {name for name, _ in found.get("buffers", ())}
        if "pe" in buffers:
            return BUGS["pe_not_persistent"]
        tables = [name for name, shape in found["state_dict"] if list(shape) == list(wanted["pe"])]
        return BUGS["pe_renamed" if tables else "pe_not_registered"]
    return None


def read_module(evidence, case):
    """The student's trace of `case` with the reference's structure, or raise Finding with a diagnosis."""
    trace = evidence.trace(case)
    if "structure" in trace:
        problem = registration_problem(case, evidence.reference(case)["structure"], trace["structure"])
        if problem:
            raise Finding(problem)
    return module_judge.read_module(evidence, case, error_diagnosis, evidence.visible(case))


def added_pe(evidence, case, output, expected):
    """(the pe the student's output added, the reference's, where dropout kept a value): the input taken away and
    dropout's 1/(1-p) undone (in eval mode every value is kept)."""
    spec = probe.CASES[case]
    x = evidence.inputs(case)[0].to(torch.float64)
    scale = 1 - spec.dropout if spec.train else 1.0
    kept = expected != 0 if spec.train else torch.ones_like(expected, dtype=torch.bool)
    return output * scale - x, expected * scale - x, kept


def frequency_problem(evidence, case, output, expected):
    """The student's pe (`added_pe`): the first sin/cos pair right and the rest wrong → div_term."""
    if probe.CASES[case].cls != probe.POSITIONAL or output.shape != expected.shape:
        return None
    found, wanted, kept = added_pe(evidence, case, output, expected)
    first = kept[..., :2]
    rest = kept[..., 2:]
    if close(found[..., :2][first], wanted[..., :2][first]) and not close(found[..., 2:][rest], wanted[..., 2:][rest]):
        return BUGS["pe_frequencies"]
    return None


def one_position_problem(evidence, case, output, expected):
    """PositionalEncoding: the pe the student added (`added_pe`) is one row, the same at every position where dropout
    kept a value → one position picked."""
    if probe.CASES[case].cls != probe.POSITIONAL or output.shape != expected.shape or output.dim() != 3 \
            or output.size(1) < 2:
        return None
    found, _, kept = added_pe(evidence, case, output, expected)
    if not bool(kept.any()) or float(found[kept].abs().max()) < 1e-6:
        return None
    spread = (found.masked_fill(~kept, -torch.inf).amax(dim=(0, 1)) - found.masked_fill(~kept, torch.inf).amin(dim=(0, 1)))
    columns = kept.any(dim=0).any(dim=0)
    return BUGS["pe_one_position"] if bool((spread[columns] < 1e-6).all()) else None


def fitted_multiple(found, basis):
    """c with found ≈ c · basis (least squares; None when basis is all zeros or the fit does not hold)."""
    norm = float((basis * basis).sum())
    if norm == 0:
        return None
    c = float((found * basis).sum()) / norm
    return c if close(found, c * basis) else None


def scale_problem(evidence, case, output, expected):
    """Embeddings: the output is the reference's times a constant → another scale than √d_model (named, with the
    scale it found, on a visible case). No bug model needed: lut(x) · c = reference · c/√d_model."""
    if output.shape != expected.shape:
        return None
    ratio = fitted_multiple(output, expected)
    if ratio is None or math.isclose(ratio, 1.0, rel_tol=1e-4):
        return None
    if not evidence.visible(case):
        return BUGS["emb_other_scale"]
    d_model = probe.CASES[case].d_model
    return BUGS["emb_other_scale"] + f" (d_model = {d_model}: √d_model ≈ {math.sqrt(d_model):.4g}, 곱한 수 ≈ " \
        f"{ratio * math.sqrt(d_model):.4g})"


def dropout_rate_problem(evidence, case, output, expected):
    """Train mode: the module's nn.Dropout has another rate than the reference's (a hard-coded p, a changed p)."""
    trace = evidence.trace(case)
    if not probe.CASES[case].train or "structure" not in trace:
        return None
    return module_judge.dropout_problem(evidence.reference(case)["structure"], trace["structure"],
                                        BUGS["dropout_module"])


def scaled_input_problem(evidence, case, output, expected):
    """PositionalEncoding: the output differs from the reference by a multiple of the input x (where dropout kept a
    value) → x was scaled before pe was added."""
    spec = probe.CASES[case]
    if output.shape != expected.shape:
        return None
    x = evidence.inputs(case)[0].to(torch.float64)
    kept = expected != 0 if spec.train else torch.ones_like(expected, dtype=torch.bool)
    scaled = x / (1 - spec.dropout) if spec.train else x
    multiple = fitted_multiple((output - expected)[kept], scaled.expand_as(expected)[kept])
    return BUGS["pe_scaled_input"] if multiple is not None and abs(multiple) > 1e-3 else None


def values_problem(evidence, case, output, expected):
    """A wrong output no bug model reproduces, read from its values (Korean), or None."""
    if probe.CASES[case].cls == probe.EMBEDDINGS:
        return scale_problem(evidence, case, output, expected)
    return (dropout_rate_problem(evidence, case, output, expected)
            or one_position_problem(evidence, case, output, expected)
            or frequency_problem(evidence, case, output, expected)
            or scaled_input_problem(evidence, case, output, expected))


def dtype_problem(evidence, case):
    """An eval-mode PositionalEncoding whose output has another dtype than the reference's (x + a float64 pe is
    float64), or None. The train cases judge where dropout goes, not this."""
    spec = probe.CASES[case]
    if spec.cls != probe.POSITIONAL or spec.train:
        return None
    found = evidence.trace(case).get("result", {}).get("dtype")
    return BUGS["pe_dtype"] if found and found != evidence.reference(case)["result"].get("dtype") else None


def output_problem(evidence, case, output):
    """Why the student's output on `case` differs from the reference (Korean), or None."""
    return (module_judge.output_problem(evidence, case, output, MODELS, like_input=False, values=values_problem)
            or dtype_problem(evidence, case))


# ----------------------------------------------------------------------------- checks


def table_length(structure):
    """The number of rows of the `pe` table in a recorded structure (None without one)."""
    shape = dict((name, shape) for name, shape in structure["state_dict"]).get("pe")
    return shape[1] if shape and len(shape) == 3 else None


def pe_structure_problem(evidence, case):
    """PositionalEncoding(20, 0.1[, max_len]): `pe` (1, max_len, 20) a buffer, no parameters, dropout 0.1."""
    trace = evidence.trace(case)
    if "structure" in trace and probe.CASES[case].max_len is not None:
        default = table_length(evidence.reference("pe_module")["structure"])  # the default max_len's rows
        if table_length(trace["structure"]) == default != table_length(evidence.reference(case)["structure"]):
            return BUGS["max_len_ignored"]
    found, expected = read_module(evidence, case)["structure"], evidence.reference(case)["structure"]
    return (BUGS["pe_parameter"] if any(name == "pe" for name, *_ in found["parameters"]) else None) \
        or module_judge.dropout_problem(expected, found, BUGS["dropout_module"]) \
        or parameter_count_problem(expected, found)


def output_check(case):
    """The student's forward output on `case` equals the reference's; otherwise name the bug. A freshly built
    PositionalEncoding is judged by its output alone (its structure has checks of its own)."""
    return module_judge.output_check(case, error_diagnosis, output_problem, structure=probe.CASES[case].kind == "embed")


CHECKS = [
    Check(name="embeddings_structure", points=10, title="self.lut: nn.Embedding(vocab, d_model)",
          cases=("embeddings_module",), judge=module_judge.structure_check("embeddings_module", error_diagnosis, None)),
    Check(name="embeddings_scale", points=15, title="Embeddings 출력 = lut(x) × √d_model", cases=("embeddings",),
          judge=output_check("embeddings")),
    Check(name="pe_structure", points=15, title="pe는 (1, max_len, d_model) buffer, parameter 없음, dropout (max_len을 따름)",
          cases=("pe_module", "pe_max_len"), judge=each_case(pe_structure_problem)),
    Check(name="pe_eval", points=20, title="새로 만든 PositionalEncoding의 eval 출력 = x + pe[:, :길이]",
          cases=("pe_eval",), judge=output_check("pe_eval")),
    Check(name="pe_dropout_train", points=10, title="train 모드 dropout은 x + pe 뒤 (시드 고정 시 기준과 같음)",
          cases=("pe_dropout_train",), judge=output_check("pe_dropout_train")),
]

### BEGIN HIDDEN TESTS
CHECKS += [
    Check(name="hidden_embeddings", points=10, title="다른 d_model, vocab의 Embeddings", cases=("hidden_embeddings",),
          judge=output_check("hidden_embeddings"), visible=False),
    Check(name="hidden_pe", points=10, title="다른 d_model, max_len, 길이의 PositionalEncoding", cases=("hidden_pe",),
          judge=output_check("hidden_pe"), visible=False),
    Check(name="hidden_pe_dropout", points=10, title="다른 입력의 train 모드 dropout", cases=("hidden_pe_dropout",),
          judge=output_check("hidden_pe_dropout"), visible=False),
]
### END HIDDEN TESTS

CHAPTER = Chapter(id="05_embeddings", probe=probe, checks=CHECKS, bugs=BUGS, picture=None,
                  model_code=MODEL_CODE)
