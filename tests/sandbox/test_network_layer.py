"""The bubblewrap layer alone keeps a submission off the host's network.

A pool worker also unshares its own (empty) network namespace, so the pool-level network test would stay
green without bubblewrap's. Here the program runs under `bwrap.command` directly, with no worker in between:
it must not reach a listener on the host's 127.0.0.1, while the same program outside bubblewrap does.
"""
import os
import socket
import subprocess
import sys

import pytest

from grader.sandbox import bwrap

pytestmark = pytest.mark.sandbox

CONNECT = """\
import socket, sys
connection = socket.socket()
connection.settimeout(2)
try:
    connection.connect(("127.0.0.1", int(sys.argv[1])))
except OSError as error:
    print("REFUSED", type(error).__name__)
else:
    print("CONNECTED")
"""


@pytest.fixture
def listener():
    """A listening TCP socket on the host's loopback (connections queue in its backlog; none is accepted yet)."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)
        yield server


def _connections(server):
    """How many connections reached `server` (drained from its backlog)."""
    count = 0
    while True:
        try:
            connection, _ = server.accept()
        except BlockingIOError:
            return count
        connection.close()
        count += 1


def _connect(server, prefix=()):
    program = [sys.executable, "-I", "-S", "-c", CONNECT, str(server.getsockname()[1])]
    done = subprocess.run([*prefix, *program], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _bubblewrap(code_dir):
    """bwrap's own argv prefix (everything up to and including "--"), as the pool would start a worker."""
    os.chmod(code_dir, 0o755)
    argv = bwrap.command(["PROGRAM"], code_dir)
    return argv[:argv.index("PROGRAM")]


def test_the_host_loopback_is_reachable_outside_the_sandbox(listener):
    """Control: without bubblewrap the same program connects (so the test below means something)."""
    assert "CONNECTED" in _connect(listener)
    assert _connections(listener) == 1


def test_bubblewrap_alone_keeps_a_program_off_the_host_loopback(need_bwrap, listener, tmp_path):
    output = _connect(listener, _bubblewrap(tmp_path))
    assert "REFUSED" in output, output
    assert _connections(listener) == 0
