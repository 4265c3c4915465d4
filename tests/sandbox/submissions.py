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


def spent_helpers(orphans, rounds=3, seconds=1.2):
    """Spends rounds x 2 x `seconds` of CPU in helpers two at a time, each helper gone (a zombie never reaped or, with
    `orphans`, an orphan whose parent exited at once) before the next round, so the living processes never hold more
    than 2 x `seconds` of it."""
    return f"""\
import os, time


def burn():
    start = time.process_time()
    while time.process_time() - start < {seconds}:
        pass
    os._exit(0)


def state(pid):
    try:
        with open(f"/proc/{{pid}}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


reader, writer = os.pipe()
for _ in range({rounds}):
    pids = []
    for _ in range(2):
        pid = os.fork()
        if pid == 0:
            if {orphans!r}:
                burner = os.fork()
                if burner:
                    os.write(writer, burner.to_bytes(4, "little"))
                    os._exit(0)  # the burner is an orphan now
            burn()
        if {orphans!r}:
            os.waitpid(pid, 0)
            pid = int.from_bytes(os.read(reader, 4), "little")
        pids.append(pid)
    while any(state(pid) not in ("Z", "gone") for pid in pids):
        time.sleep(0.01)
"""

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
           repo + "/grader/nbgrader_source", repo + "/grader/checks", repo + "/.git", repo + "/tests"]
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


# Tries every way back to root, then reports the ids and capabilities the kernel shows for this process.
REGAIN_ROOT = """\
import os

attempts = {
    "setuid": lambda: os.setuid(0),
    "seteuid": lambda: os.seteuid(0),
    "setreuid": lambda: os.setreuid(0, 0),
    "setresuid": lambda: os.setresuid(0, 0, 0),
    "setgid": lambda: os.setgid(0),
    "setresgid": lambda: os.setresgid(0, 0, 0),
    "setgroups": lambda: os.setgroups([0]),
}
for name, attempt in attempts.items():
    try:
        attempt()
    except OSError as error:
        print("REFUSED", name, type(error).__name__)
    else:
        print("ALLOWED", name)
status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
for field in ("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapAmb"):
    print(field.upper(), *status[field].split())
print("RESUID", *os.getresuid())
"""


def leak_hunt(salt, fingerprints, skipped_trees=(), file_root="/", probe="grader.checks.ch01_probe"):
    """Search everything within reach for the hidden expected values, at import and in the first call of attention.

    A fingerprint is sha256(salt + "a,b,c") of three consecutive expected values formatted with 7 significant
    digits, so the submission carries no expected value itself. It prints what it searched (SEARCHED, JSON counts)
    and each place where a fingerprinted run turned up (FOUND, JSON counts), and returns zeros. Files are read
    everywhere under `file_root` except in `skipped_trees` (the host's read-only /usr and Python installation:
    3.8 GB in 210,000 files, the host's own software, no grader data) and /proc, /sys, /dev.
    """
    return f'''\
import gc, hashlib, json, os, re, sys

SALT = {salt!r}
WANTED = frozenset({sorted(fingerprints)!r})
FILE_ROOT = {file_root!r}
SKIPPED = {sorted(skipped_trees)!r}
PROBE = {probe!r}
NUMBER = re.compile(r"-?(?:[0-9]+[.][0-9]*|[.][0-9]+)(?:[eE][-+]?[0-9]+)?|-?[0-9]+[eE][-+]?[0-9]+")
BYTES_NUMBER = re.compile(NUMBER.pattern.encode())
SEVEN_DIGITS = re.compile(r"[0-9][.][0-9]{{4}}")  # in any value written to 7 significant digits or more
BYTES_SEVEN_DIGITS = re.compile(SEVEN_DIGITS.pattern.encode())
FOUND, SEARCHED = {{}}, {{}}


def floats(where, values):
    """Count fingerprinted runs of three consecutive floats in `values`."""
    values = [value for value in values if type(value) is float]
    SEARCHED[where] = SEARCHED.get(where, 0) + len(values)
    for start in range(len(values) - 2):
        text = ",".join(format(value, ".7g") for value in values[start:start + 3])
        if hashlib.sha256((SALT + text).encode()).hexdigest() in WANTED:
            FOUND[where] = FOUND.get(where, 0) + 1


def text(where, data):
    """Count fingerprinted runs among the numbers written in `data` (str or bytes)."""
    number, seven = (NUMBER, SEVEN_DIGITS) if isinstance(data, str) else (BYTES_NUMBER, BYTES_SEVEN_DIGITS)
    if seven.search(data):
        floats(where, [float(token) for token in number.findall(data)])


def items(where, values):
    """The floats, strings and bytes held directly by a container."""
    values = list(values)
    floats(where, values)
    for value in values:
        if isinstance(value, (str, bytes, bytearray)) and len(value) >= 20:
            text(where, value)


def tensor(where, value):
    """The values of a floating-point tensor."""
    try:
        if value.is_floating_point() and value.numel() <= 10**6:
            floats(where, value.detach().reshape(-1).tolist())
    except Exception:
        pass


def walk(where, value, seen, depth=0):
    """Everything reachable from `value` through containers and attributes (other modules aside)."""
    if id(value) in seen or depth > 8 or (depth and isinstance(value, type(sys))):
        return
    seen.add(id(value))
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        tensor(where, value)
        return
    if isinstance(value, dict):
        children = [*value.keys(), *value.values()]
    elif isinstance(value, (list, tuple, set, frozenset)):
        children = list(value)
    else:
        children = list(getattr(value, "__dict__", {{}}).values())
        if not children:
            return
    items(where, children)
    for child in children:
        if not isinstance(child, (str, bytes, bytearray, int, float, type(None))) and not callable(child):
            walk(where, child, seen, depth + 1)


def processes():
    """Environment and command line of this process and of every process visible in /proc."""
    SEARCHED["environ_variables"] = len(os.environ)
    text("environ", "\\n".join(key + "=" + value for key, value in os.environ.items()))
    for pid in ["self", *(name for name in os.listdir("/proc") if name.isdigit())]:
        for name in ("environ", "cmdline"):
            try:
                with open(f"/proc/{{pid}}/{{name}}", "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            SEARCHED["proc_files"] = SEARCHED.get("proc_files", 0) + 1
            text("proc_" + name, data)


def objects():
    """Every object the garbage collector knows (the worker froze its heap: unfreeze it first)."""
    gc.unfreeze()
    torch = sys.modules.get("torch")
    for value in gc.get_objects():
        SEARCHED["gc_objects"] = SEARCHED.get("gc_objects", 0) + 1
        if isinstance(value, dict):
            items("gc", [*value.keys(), *value.values()])
        elif isinstance(value, (list, tuple)):
            items("gc", value)
        elif torch is not None and isinstance(value, torch.Tensor):
            tensor("gc", value)


def files():
    """Every readable regular file under FILE_ROOT (up to 8 MB each), outside SKIPPED, /proc, /sys and /dev."""
    skipped = {{*SKIPPED, "/proc", "/sys", "/dev"}}
    for folder, subfolders, names in os.walk(FILE_ROOT):
        subfolders[:] = [name for name in subfolders if os.path.join(folder, name) not in skipped]
        for name in names:
            path = os.path.join(folder, name)
            try:
                if not os.path.isfile(path) or os.path.islink(path) or os.path.getsize(path) > 8 << 20:
                    continue
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            SEARCHED["files_read"] = SEARCHED.get("files_read", 0) + 1
            text("files", data)


def hunt(moment):
    """Search everything (files at import only: they do not change), print the counts, start afresh."""
    processes()
    SEARCHED["probe_module"] = int(PROBE in sys.modules)
    walk("probe", sys.modules.get(PROBE), set())
    objects()
    if moment == "import":
        files()
    print("SEARCHED", moment, json.dumps(SEARCHED, sort_keys=True))
    print("FOUND", moment, json.dumps(FOUND, sort_keys=True))
    FOUND.clear()
    SEARCHED.clear()


hunt("import")
_calls = []


def attention(query, key, value):
    if not _calls:
        _calls.append(1)
        hunt("call")
    import torch
    return torch.zeros(1), None
'''


def fan_out(children, megabytes, seconds=8):
    """Fork `children` processes that each fill `megabytes` of memory and wait together for `seconds` (no one alone is
    big; filling takes a second or two, so they overlap, and the batch does not wait long for them)."""
    return f"""\
import os, time
pids = []
for _ in range({children}):
    pid = os.fork()
    if pid == 0:
        block = b"x" * ({megabytes} << 20)
        time.sleep({seconds})
        os._exit(0)
    pids.append(pid)
for pid in pids:
    os.waitpid(pid, 0)
"""


def hog(processes):
    """Start `processes` busy processes, each in a session of its own, then keep busy itself."""
    return f"""\
import os
for _ in range({processes}):
    if os.fork() == 0:
        os.setsid()
        while True:
            pass
while True:
    pass
"""


# Forged results: the traces of `right` (another source, e.g. the solution) written to the result pipe as a frame
# of the right shape (length, JSON, 32 bytes where the MAC goes) by the submission itself. Only `how` differs.
_FORGE = '''
import os as _os, struct as _struct, sys as _sys, json as _json
from grader.checks.loading import module_from_source as _load
_probe = _sys.modules[{probe!r}]
_right = _load({right!r})
_payload = _json.dumps({{"traces": {{name: _probe.run_case(_right, name) for name in _probe.case_names()}}}}).encode()
_FRAME = _struct.pack(">Q", len(_payload)) + _payload + bytes(32)
'''
FORGE_WAYS = {
    # write the frame to fd 3 and end before the sandbox's own frame
    "write_exit": "_os.write(3, _FRAME)\n_os._exit(0)\n",
    # write it and carry on: the sandbox's own frame follows
    "write_continue": "_os.write(3, _FRAME)\n",
    # a dup of fd 3, fd 3 closed and replaced by /dev/null so the sandbox's own frame goes nowhere
    "dup_close": "_fd = _os.dup(3)\n_os.dup2(_os.open(_os.devnull, _os.O_WRONLY), 3)\n_os.write(_fd, _FRAME)\n",
    # a forked child writes the frame; the parent hides fd 3 from the sandbox's own frame and goes on
    "fork_writes": ("_pid = _os.fork()\nif _pid == 0:\n    _os.write(3, _FRAME)\n    _os._exit(0)\n"
                    "_os.waitpid(_pid, 0)\n_os.dup2(_os.open(_os.devnull, _os.O_WRONLY), 3)\n"),
    # a length prefix alone, claiming the sandbox's own frame as part of a longer payload
    "swallow": "_os.write(3, _struct.pack('>Q', 1 << 20))\n",
}


def forger(probe, right, how):
    """Code (to append to a submission, or for a notebook cell) that forges the result pipe in way `how`."""
    return _FORGE.format(probe=probe, right=right) + FORGE_WAYS[how]


# Replaces the sandbox's own encoder and signing helpers so the child's last step would send forged JSON.
PATCH_SEALER = '''
import sys as _sys
_child = _sys.modules["grader.sandbox.child"]
_protocol = _sys.modules["grader.sandbox.protocol"]
_forged = '{"traces": {}}'
_child._FALLBACK_ENCODE = lambda value: _forged
_child._ENCODER = lambda value, indent: [_forged]
_child.write_all = lambda fd, data: None
_protocol.sign = lambda key, data: bytes(32)
_protocol._hmac_digest = lambda key, data, name: bytes(32)
'''
