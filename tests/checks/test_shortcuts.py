"""Every hidden check needs the answer: per chapter, a "shortcut" that does none of the chapter's work (returns its
input, constant data, the source itself) earns no hidden point, even where its output looks plausible; nor does a
submission that hard-codes the visible cases' expected outputs (chapters 01 and 02)."""
import pytest

from .chapters import each_chapter, grade

pytestmark = pytest.mark.slow

# Appended to the chapter's solution: every unit the chapter asks for is replaced by a shortcut.
SHORTCUTS = {
    "01": '''
def attention(query, key, value, mask=None, dropout=None):
    return value, torch.full((*query.shape[:-1], key.shape[-2]), 1.0 / key.shape[-2])
''',
    "02": '''
def subsequent_mask(size):
    return torch.ones(1, size, size, dtype=torch.bool)


def attention(query, key, value, mask=None, dropout=None):
    return value, torch.full((*query.shape[:-1], key.shape[-2]), 1.0 / key.shape[-2])
''',
    "03": '''
def subsequent_mask(size):
    return torch.ones(1, size, size, dtype=torch.bool)


class MultiHeadedAttention(MultiHeadedAttention):
    def forward(self, query, key, value, mask=None):
        return query
''',
    "04": '''
class PositionwiseFeedForward(PositionwiseFeedForward):
    def forward(self, x):
        return x
''',
    "05": '''
class Embeddings(Embeddings):
    def forward(self, x):
        return torch.zeros(*x.shape, self.lut.embedding_dim)


class PositionalEncoding(PositionalEncoding):
    def forward(self, x):
        return x
''',
    "06": '''
class LayerNorm(LayerNorm):
    def forward(self, x):
        return x


class SublayerConnection(SublayerConnection):
    def forward(self, x, sublayer):
        return x
''',
    "07": '''
class EncoderLayer(EncoderLayer):
    def forward(self, x, mask):
        return x


class Encoder(Encoder):
    def forward(self, x, mask):
        return x
''',
    "08": '''
class DecoderLayer(DecoderLayer):
    def forward(self, x, memory, src_mask, tgt_mask):
        return x


class Decoder(Decoder):
    def forward(self, x, memory, src_mask, tgt_mask):
        return x
''',
    "09": '''
class Generator(Generator):
    def forward(self, x):
        return x


class EncoderDecoder(EncoderDecoder):
    def forward(self, src, tgt, src_mask, tgt_mask):
        return torch.zeros(*tgt.shape, self.generator.proj.in_features)


def make_model(src_vocab, tgt_vocab, N=6, d_model=512, d_ff=2048, h=8, dropout=0.1):
    return Generator(d_model, tgt_vocab)
''',
    "10": '''
class Batch:
    def __init__(self, src, tgt=None, pad=2):
        self.src = src
        self.src_mask = torch.ones(src.shape[0], 1, src.shape[1], dtype=torch.bool)
        if tgt is not None:
            self.tgt, self.tgt_y = tgt, tgt
            self.tgt_mask = torch.ones(tgt.shape[0], tgt.shape[1], tgt.shape[1], dtype=torch.bool)
            self.ntokens = tgt.numel()
''',
    "11": '''
def rate(step, model_size, factor, warmup):
    return 1.0


class LabelSmoothing(LabelSmoothing):
    def forward(self, x, target):
        return (x * 0).sum()
''',
    "12": '''
def data_gen(V, batch_size, nbatches):
    for _ in range(nbatches):
        data = torch.ones(batch_size, 10, dtype=torch.long)
        yield Batch(data, data.clone(), 0)


class SimpleLossCompute(SimpleLossCompute):
    def __call__(self, x, y, norm):
        return 0.0, (x * 0).sum()


def run_epoch(data_iter, model, loss_compute, optimizer, scheduler, mode="train", accum_iter=1, train_state=None):
    return 0.0, train_state if train_state is not None else TrainState()
''',
    "13": '''
def greedy_decode(model, src, src_mask, max_len, start_symbol):
    return src
''',
    "14": '''
def fill_attention(model, src, src_mask, max_len, start_symbol):
    return src


def get_encoder(model, layer):
    return None


def get_decoder_self(model, layer):
    return None


def get_decoder_src(model, layer):
    return None


def attn_map(attn, head, row_tokens, col_tokens, max_dim, ax):
    return ax


def visualize_layer(model, layer, getter_fn, ntokens, row_tokens, col_tokens):
    return Figure()
''',
}


@pytest.mark.parametrize("chapter", each_chapter())
def test_a_shortcut_earns_no_hidden_points(chapter, tmp_path):
    """The solution with every unit of the chapter replaced by a shortcut scores 0 on every hidden check."""
    path = tmp_path / "transformer.py"
    path.write_text(chapter.solution.read_text(encoding="utf-8") + "\n" + SHORTCUTS[chapter.number], encoding="utf-8")
    hidden = set(chapter.hidden_checks())
    results = grade(chapter, path)
    assert {r.name for r in results} >= hidden
    paid = [(r.name, r.score) for r in results if r.name in hidden and r.score > 0]
    assert paid == []


# A whole submission: `attention` answers every input whose shapes match a visible case with that case's expected
# result, copied from the reference the student's self-check ships with; anything else gets a shortcut.
REPLAY = '''
import torch

_REPLAY = {replay}


def subsequent_mask(size):
    return torch.ones(1, size, size, dtype=torch.bool)


def attention(query, key, value, mask=None, dropout=None):
    wanted = repr((tuple(query.shape[:-1]) + (value.shape[-1],), tuple(query.shape[:-1]) + (key.shape[-2],)))
    if wanted in _REPLAY:
        out, out_shape, p, p_shape = _REPLAY[wanted]
        return torch.tensor(out).reshape(out_shape), torch.tensor(p).reshape(p_shape)
    return value, torch.full((*query.shape[:-1], key.shape[-2]), 1.0 / key.shape[-2])
'''


def _replayed_results(chapter):
    """{repr((output shape, p_attn shape)): (output, its shape, p_attn, its shape)} of the chapter's visible cases, read
    from `exercises/NN/selfcheck/reference.json` (what every student has)."""
    import json

    document = json.loads((chapter.exercise_dir / "selfcheck" / "reference.json").read_text(encoding="utf-8"))
    replay = {}
    for case in document["cases"].values():
        result = case.get("result") or {}
        if result.get("kind") == "tuple" and len(result["items"]) == 2:
            out, p_attn = result["items"]
            replay[repr((tuple(out["shape"]), tuple(p_attn["shape"])))] = (out["data"], out["shape"], p_attn["data"],
                                                                          p_attn["shape"])
    return replay


@pytest.mark.parametrize("chapter", [c for c in each_chapter() if c.values[0].number in ("01", "02")])
def test_hard_coded_visible_outputs_earn_no_hidden_points(chapter, tmp_path):
    """An `attention` that hard-codes the visible cases' expected outputs (from the shipped reference) earns visible
    points but no hidden point: the hidden inputs are not the visible ones."""
    import json

    replay = _replayed_results(chapter)
    assert replay, "the shipped reference has no visible attention result to replay"
    path = tmp_path / "transformer.py"
    path.write_text(REPLAY.replace("{replay}", json.dumps(replay)), encoding="utf-8")
    results = grade(chapter, path)
    hidden = set(chapter.hidden_checks())
    assert any(r.score > 0 for r in results if r.name not in hidden), "the replay should pass some visible check"
    assert [(r.name, r.score) for r in results if r.name in hidden and r.score > 0] == []
