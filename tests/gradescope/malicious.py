# A submission that attacks the Gradescope autograder, then answers correctly. Any attack that works
# makes `attention` fail, so the score shows it; the test also looks for what each attack leaves behind.
import os
import socket
import subprocess

import torch

BROKEN_IN = []

for path in ("/autograder/source/grader/reference/01_attention.json", "/autograder/source/grader/chapters/01_attention/ch01_judge.py",
             "/autograder/source/config.json"):
    try:
        with open(path, encoding="utf-8") as handle:
            handle.read(100)
        BROKEN_IN.append("read " + path)
    except OSError:
        pass

for path in ("/autograder/results/results.json", "/autograder/results/pwned"):
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write('{"score": 1000, "output": "pwned"}')
        BROKEN_IN.append("wrote " + path)
    except OSError:
        pass

try:  # the test listens on this port of the host's loopback
    socket.create_connection(("127.0.0.1", __PORT__), timeout=2).close()
    BROKEN_IN.append("network")
except OSError:
    pass

try:  # a daemon that should outlive the grading, if nobody kills it
    subprocess.Popen(["sleep", "__SLEEP__"], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
except OSError:
    pass

print("x" * 1000)


def attention(query, key, value):
    "Compute 'Scaled Dot Product Attention'"
    if BROKEN_IN:
        raise RuntimeError(", ".join(BROKEN_IN))
    scores = torch.matmul(query, key.transpose(-2, -1)) / query.size(-1) ** 0.5
    p_attn = scores.softmax(dim=-1)
    return torch.matmul(p_attn, value), p_attn
