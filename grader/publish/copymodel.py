"""The build step that trains the copy-task model of chapters 13 on (`grader/checks/trained.py` loads it).

Chapter 12's solution trains `make_model(11, 11, N=1, d_model=32, d_ff=64, h=4)` on the copy task as the Annotated
Transformer does — `data_gen(11, 80, 20)` for 10 epochs (200 steps), `LabelSmoothing(11, 0, 0.0)`,
`SimpleLossCompute`, `run_epoch`, Adam(lr=1.0, betas=(0.9, 0.98), eps=1e-9) and LambdaLR(`rate(step, 32, 1.0, 400)`),
dropout 0.1 — with two changes that make the weights the same on every CPU (`build --check` compares them within
the float32 tolerance, also under `ATEN_CPU_CAPABILITY=default`): the model is trained in float64, and its first
weights are drawn in float64 (Xavier's bound for matrices, nn.Linear's for biases), since torch's float32 `uniform_`
and `normal_` differ in the last bit between CPUs and dropout's noise grows that to 1e-2 in 200 steps.
"""
import contextlib
import io
import math

from grader import chapters
from grader.checks import trained
from grader.checks.loading import module_from_source

from . import headers
from .codechange import finished_module

TRAINED_WITH = "12"  # the chapter whose finished module has make_model, data_gen, run_epoch, rate, LabelSmoothing
SEED = 1300
EPOCHS, BATCHES, BATCH_SIZE, WARMUP = 10, 20, 80, 400


def first_weights(model, seed):
    """Draw every parameter but LayerNorm's (ones and zeros) in float64, uniform in ±bound, from `seed`."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    state = model.state_dict()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith((".a_2", ".b_2")):
                continue
            if p.dim() > 1:
                bound = math.sqrt(6.0 / (p.size(0) + p.size(1)))  # xavier_uniform_
            else:
                bound = 1.0 / math.sqrt(state[name[: -len("bias")] + "weight"].size(1))  # nn.Linear's bias
            p.copy_((torch.rand(p.shape, generator=generator, dtype=torch.float64) * 2 - 1) * bound)


def train(namespace, seed=SEED):
    """The copy model trained with `namespace`'s code (float64): {name: float64 tensor} of its parameters."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the order of float sums must not depend on the machine's cores
    try:
        torch.manual_seed(seed)
        model = namespace.make_model(trained.VOCAB, trained.VOCAB, **trained.CONFIG).double()
        first_weights(model, seed)
        criterion = namespace.LabelSmoothing(size=trained.VOCAB, padding_idx=0, smoothing=0.0)
        optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
        d_model = trained.CONFIG["d_model"]
        scheduler = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lr_lambda=lambda step: namespace.rate(step, d_model, factor=1.0, warmup=WARMUP))
        model.train()
        with contextlib.redirect_stdout(io.StringIO()):  # run_epoch's progress lines
            for _ in range(EPOCHS):
                namespace.run_epoch(namespace.data_gen(trained.VOCAB, BATCH_SIZE, BATCHES), model,
                                    namespace.SimpleLossCompute(model.generator, criterion), optimizer, scheduler,
                                    mode="train")
        return {name: p.detach().clone() for name, p in model.named_parameters()}
    finally:
        torch.set_num_threads(threads)


def document():
    """The weights document `trained.py` reads: the parameters as float32 numbers (7 significant digits)."""
    chapter = chapters.find(TRAINED_WITH)
    namespace = module_from_source(finished_module(chapter))
    parameters = {name: {"shape": list(value.shape),
                         "data": [float(f"{x:.7g}") for x in value.float().reshape(-1).tolist()]}
                  for name, value in train(namespace).items()}
    note = headers.note(f"solutions/{chapter.id}/transformer.py trained by grader/publish/copymodel.py")
    return {"_generated": note, "config": {"vocab": trained.VOCAB, **trained.CONFIG, "seed": SEED, "epochs": EPOCHS,
                                           "batches": BATCHES, "batch_size": BATCH_SIZE, "warmup": WARMUP},
            "parameters": parameters}
