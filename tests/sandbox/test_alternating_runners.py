"""A worker of the shared sandbox runs its jobs as two uids in turn, the next job's runner and child forked ahead.

While a submission runs, the runner of the next job and its child already exist (worker._serve_alternating), as the
worker's other uid: these tests check that they do, and that the running submission can neither reach them nor leave
anything for the submission they will run (files, System V IPC objects, POSIX message queues).
"""
import json

import pytest

from grader.sandbox import cgroups

from . import submissions as s
from .conftest import passed, run_batch

pytestmark = pytest.mark.sandbox

SAY_UID = "import os\nprint('uid', os.getuid())\n"

# Finds the processes of any other uid (pid 1, the zygote, is root), tries to signal them, read their memory and
# environment, then says what it found and what worked.
REACH_THE_NEXT_RUNNER = """\
import json, os, signal, time
mine = os.getuid()


def other_uids():
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or entry == "1":
            continue
        try:
            with open(f"/proc/{entry}/status") as status:
                uid = int(next(line for line in status if line.startswith("Uid:")).split()[1])
        except (OSError, StopIteration, ValueError):
            continue
        if uid not in (mine, 0):
            found.append(entry)
    return found


deadline = time.monotonic() + 15  # forked once the pool has moved the worker: a loaded machine can take a while
# (5 s was once too short while the other pytest worker rebuilt every generated file)
while len(other_uids()) < 2 and time.monotonic() < deadline:
    time.sleep(0.01)
others, worked = other_uids(), []
for entry in others:
    for signum in (signal.SIGSTOP, signal.SIGKILL):
        try:
            os.kill(int(entry), signum)
            worked.append(f"kill {signum}")
        except OSError:
            pass
    for name in ("mem", "environ", "fd/0"):
        try:
            open(f"/proc/{entry}/{name}", "rb").close()
            worked.append(f"open {name}")
        except OSError:
            pass
print("REACH", json.dumps({"others": len(others), "worked": worked}))
"""

# Leaves world-writable files where every job of the worker can write: /dev/shm and the scratch directory's top.
LEAVE_FILES = """\
import os
for folder in ("/dev/shm", os.path.dirname(os.getcwd())):
    path = os.path.join(folder, "left-behind")
    with open(path, "w") as handle:
        handle.write("a message for the next submission")
    os.chmod(path, 0o666)
"""

LOOK_FOR_FILES = """\
import json, os
found = []
for folder in ("/dev/shm", os.path.dirname(os.getcwd())):
    for name in os.listdir(folder):
        if os.path.join(folder, name) != os.getcwd():
            found.append(os.path.join(folder, name))
    try:
        with open(os.path.join(folder, "left-behind")) as handle:
            found.append(handle.read())
    except OSError:
        pass
print("FOUND", json.dumps(found))
"""


# Says the memory control group of itself, of its runner and of the processes of the other uid (the next runner and
# its child, waited for as above).
SAY_GROUPS = REACH_THE_NEXT_RUNNER.split("others, worked")[0] + """\


def memory_group(pid):
    with open(f"/proc/{pid}/cgroup") as lines:
        return next(line.split(":", 2)[2].strip() for line in lines if "memory" in line.split(":")[1].split(","))


print("GROUPS", json.dumps({"own": memory_group(os.getpid()), "runner": memory_group(os.getppid()),
                            "next": sorted({memory_group(pid) for pid in other_uids()})}))
"""


# Leaves a System V shared memory segment (with a message in it) and message queue, and a POSIX message queue: none of
# them ends with the process that made it.
LEAVE_IPC = """\
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
segment = libc.shmget(0x5EED, 4096, 0o1666)
ctypes.memmove(libc.shmat(segment, None, 0), b"a message in shared memory", 26)
queue = libc.msgget(0x5EED, 0o1666)
posix = ctypes.CDLL("librt.so.1", use_errno=True).mq_open(b"/left-behind", os.O_CREAT | os.O_WRONLY, 0o666, None)
print("LEFT", json.dumps([segment >= 0, queue >= 0, posix >= 0]))
"""

LOOK_FOR_IPC = """\
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
found = [libc.shmget(0x5EED, 0, 0) >= 0, libc.msgget(0x5EED, 0) >= 0,
         ctypes.CDLL("librt.so.1", use_errno=True).mq_open(b"/left-behind", os.O_RDONLY | os.O_NONBLOCK) >= 0]
with open("/proc/sysvipc/shm") as table:
    found.append(len(table.readlines()) - 1)
print("FOUND", json.dumps(found))
"""


def _said(result, tag):
    """The JSON a submission printed after `tag`."""
    line = next(line for line in result.stdout.splitlines() if line.startswith(tag + " "))
    return json.loads(line[len(tag) + 1:])


@pytest.fixture(scope="module")
def turns(serial_pool, solution_source, case_names):
    """One worker grades, in order: four that say their uid, one that reaches for the next runner, one that leaves
    files behind, one that looks for them."""
    order = [(f"uid_{n}", s.prelude(SAY_UID, solution_source)) for n in range(4)] + [
        ("reach", s.prelude(REACH_THE_NEXT_RUNNER, solution_source)),
        ("groups", s.prelude(SAY_GROUPS, solution_source)),
        ("after_reach", solution_source),
        ("leave", s.prelude(LEAVE_FILES, solution_source)),
        ("look", s.prelude(LOOK_FOR_FILES, solution_source)),
        ("leave_ipc", s.prelude("import json\n" + LEAVE_IPC, solution_source)),
        ("look_ipc", s.prelude("import json\n" + LOOK_FOR_IPC, solution_source)),
        ("look_ipc_again", s.prelude("import json\n" + LOOK_FOR_IPC, solution_source)),
        ("leave_and_kill", s.prelude("import json\n" + LEAVE_FILES + LEAVE_IPC + s.KILL_PARENT, solution_source)),
        ("look_after_kill", s.prelude("import json\n" + LOOK_FOR_FILES + LOOK_FOR_IPC, solution_source)),
        ("look_after_kill_again", s.prelude("import json\n" + LOOK_FOR_FILES + LOOK_FOR_IPC, solution_source)),
    ]
    results = run_batch(serial_pool, [(name, source, case_names) for name, source in order])
    results["isolation"] = serial_pool.isolation
    return results


def test_consecutive_jobs_run_as_two_uids_in_turn(turns):
    """Four jobs in a row in one worker run as uids a, b, a, b: two distinct unprivileged uids."""
    uids = [int(turns[f"uid_{n}"].stdout.split()[1]) for n in range(4)]
    assert all(passed(turns[f"uid_{n}"]) for n in range(4))
    assert uids[0] == uids[2] and uids[1] == uids[3] and uids[0] != uids[1], uids
    assert min(uids) > 0


def test_the_next_runner_exists_and_is_out_of_reach(turns):
    """While a submission runs, the next job's runner and its child exist as the other uid; signalling them or opening
    their memory, environment or fds all fail, and the next submission is graded normally."""
    reach = _said(turns["reach"], "REACH")
    assert reach["others"] >= 2, reach  # the next runner and its pre-forked child
    assert reach["worked"] == [], reach
    assert passed(turns["reach"]) and passed(turns["after_reach"]), turns["after_reach"]


def test_files_left_behind_do_not_reach_the_next_submission(turns):
    """World-writable files a submission leaves in /dev/shm and the scratch directory are gone for the next one."""
    assert passed(turns["leave"])
    assert _said(turns["look"], "FOUND") == []


def test_the_next_runner_is_born_in_the_next_jobs_control_group(turns):
    """With a control group per job, a submission and its runner share one group, and the next job's runner and child,
    forked while it runs, are already in another one (the worker forks them only once the pool has moved it there)."""
    if turns["isolation"] != cgroups.CGROUP:
        pytest.skip("no control groups here (not root, or cgroup v2 only)")
    groups = _said(turns["groups"], "GROUPS")
    assert groups["own"] == groups["runner"], groups
    assert len(groups["next"]) == 1 and groups["next"][0] != groups["own"], groups


def test_ipc_objects_left_behind_do_not_reach_the_next_submissions(turns):
    """A System V segment and message queue a submission leaves (mode 0666) are removed before its report; a POSIX
    message queue cannot be made at all. The next two submissions (one of each uid) find nothing."""
    assert passed(turns["leave_ipc"])
    segment, queue, posix = _said(turns["leave_ipc"], "LEFT")
    assert segment and queue and not posix
    assert _said(turns["look_ipc"], "FOUND") == [False, False, False, 0]
    assert _said(turns["look_ipc_again"], "FOUND") == [False, False, False, 0]


def test_a_submission_that_kills_its_runner_leaves_nothing_behind_either(turns):
    """Files and IPC objects left by a submission that then kills its own runner (which never gets to clear them) are
    cleared by the worker, as that uid, before the crash is reported: the next two submissions find nothing."""
    assert turns["leave_and_kill"].status == "crashed"
    for name in ("look_after_kill", "look_after_kill_again"):
        assert passed(turns[name])
        assert _said(turns[name], "FOUND") == [], turns[name].stdout
        assert json.loads(turns[name].stdout.splitlines()[-1].split(" ", 1)[1]) == [False, False, False, 0]
