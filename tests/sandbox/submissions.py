"""Source texts of hostile and broken submissions used by the sandbox tests (solution appended where useful)."""
import textwrap


def prelude(code, solution):
    """`code` run at import time, followed by the correct solution."""
    return textwrap.dedent(code) + "\n\n" + solution


def attention_body(code):
    """A module whose `attention` runs `code` (indented as its body)."""
    return "import os, sys, time, signal\nimport torch\n\n\ndef attention(query, key, value):\n" + textwrap.indent(textwrap.dedent(code), "    ")


EXIT_AT_IMPORT = "import sys\nsys.exit(0)\n"
OS_EXIT_AT_IMPORT = "import os\nos._exit(0)\n"
EXIT_IN_CALL = attention_body("sys.exit(0)\n")
OS_EXIT_IN_CALL = attention_body("os._exit(0)\n")
BUSY_LOOP = "while True:\n    pass\n"
SLEEP = "import time\ntime.sleep(1000)\n"
IGNORE_SIGTERM = "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n    pass\n"
HUGE_BYTEARRAY = "x = bytearray(10**11)\n"
GROWING_LIST = "import torch\nx = []\nwhile True:\n    x.append(torch.empty(2**25))\n"
GROWING_TOUCHED_LIST = "x = []\nwhile True:\n    x.append(b'x' * 10**8)\n"
HUGE_TENSOR = "import torch\nx = torch.empty(10**11)\n"
FORK_BOMB = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
KEYBOARD_INTERRUPT = "raise KeyboardInterrupt\n"
RECURSION = attention_body("return attention(query, key, value)\n")
SYNTAX_ERROR = "def attention(query, key, value:\n    return query\n"
MISSING_FUNCTION = "def attn(query, key, value):\n    return query\n"
FLOOD_STDOUT = "for _ in range(10**6):\n    print('x' * 99)\n"
SEGFAULT = "import ctypes\nimport sys\nprint('before the crash', file=sys.stderr)\nctypes.string_at(0)\n"
HUGE_RESULT = attention_body("return tuple(torch.rand(50_000) for _ in range(16)), None  # ~15 MB of JSON\n")
KILL_PARENT = "import os\nos.kill(os.getppid(), 9)\nimport time\ntime.sleep(30)\n"
KILL_EVERYTHING = "import os\ntry:\n    os.kill(-1, 9)\nexcept OSError:\n    pass\nimport time\ntime.sleep(30)\n"
SIGNAL_WORKER = """\
import os, signal
for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGSTOP, signal.SIGKILL):
    try:
        os.kill(1, signum)
    except PermissionError:  # pid 1 is the shared sandbox's root zygote: refused outright
        pass
"""
STOP_PARENT = "import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\n"

# Patches json and torch.allclose, then returns a (wrong) constant: only its own outputs may change.
PATCHER = """\
import json
import json.encoder
import torch

json.dumps = lambda *args, **kwargs: '{"traces": {}}'
json.JSONEncoder.encode = lambda self, value: '{"traces": {}}'
json.encoder.c_make_encoder = None
torch.allclose = lambda *args, **kwargs: True


def attention(query, key, value):
    return torch.zeros(2, 2), None
"""

# Fails loudly if an earlier submission's patches were still in effect.
PRISTINE_CHECK = """\
import json
import torch

if json.dumps({"a": 1}) != '{"a": 1}':
    raise RuntimeError("json.dumps is still patched")
if torch.allclose(torch.zeros(1), torch.ones(1)):
    raise RuntimeError("torch.allclose is still patched")
"""


def fork_counter(limit=200):
    """Fork idle children until the kernel refuses; print how many, and our uid and capabilities."""
    return f"""\
import os, time
children = []
for _ in range({limit}):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
capabilities = [line.split()[1] for line in open("/proc/self/status") if line.startswith("CapEff")]
print("FORKED", len(children), "UID", os.getuid(), "CAPEFF", capabilities[0], "PROCS", sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
"""


def orphan(seconds):
    """Leave a `sleep` behind in its own session."""
    return f"import subprocess\nsubprocess.Popen(['sleep', '{seconds}'], start_new_session=True)\n"


def peek(repo):
    """Try to see the repository (solutions, reference data, git); raise if anything is visible."""
    return f"""\
import os
repo = {str(repo)!r}
targets = [repo + "/solutions/01_attention/transformer.py", repo + "/solutions", repo + "/grader/reference",
           repo + "/grader/source", repo + "/grader/checks", repo + "/.git", repo + "/tests"]
visible = [path for path in targets if os.path.exists(path)]
try:
    with open(targets[0]) as handle:
        visible.append("read:" + handle.read(20))
except OSError as error:
    print("OPEN", type(error).__name__)
print("ROOT", sorted(os.listdir("/")))
print("REPO", sorted(os.listdir(repo)) if os.path.isdir(repo) else None)
print("CODE", sorted(os.listdir("/grader-code/grader")) if os.path.isdir("/grader-code/grader") else None)
print("CHECKS", sorted(os.listdir("/grader-code/grader/checks")) if os.path.isdir("/grader-code/grader/checks") else None)
if visible:
    raise RuntimeError("VISIBLE " + repr(visible))
"""


def write_outside(paths):
    """Try to create each of `paths`; print what happened."""
    return f"""\
for path in {list(map(str, paths))!r}:
    try:
        with open(path, "w") as handle:
            handle.write("pwned")
        print("WROTE", path)
    except OSError as error:
        print("REFUSED", path, type(error).__name__)
"""


def connect(port):
    """Connect to 127.0.0.1:`port`; raise if it worked."""
    return f"""\
import socket
connection = socket.socket()
connection.settimeout(2)
try:
    connection.connect(("127.0.0.1", {port}))
except OSError as error:
    print("CONNECT", type(error).__name__)
else:
    raise RuntimeError("CONNECTED to the host")
"""
