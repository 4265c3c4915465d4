"""Notebooks executed by a real Jupyter kernel (nbclient), one kernel start shared by several notebooks.

A kernel start and its `import torch` cost about 2 s of CPU, more than running a chapter's notebook. So a `Kernel`
runs notebook after notebook, and before each one puts the kernel back where a fresh one starts: an empty user
namespace (`%reset -f`), no `selfcheck` or `transformer` module imported, no folder a setup cell unpacked on
`sys.path`, and the notebook's own folder as the working directory. What the notebook's setup cell then finds is
exactly what it finds in a fresh kernel: no `selfcheck` (`Kernel.run` reports where the imported one came from).
"""
import nbclient
import nbformat

RESET = '''%reset -f
import importlib as _importlib, os as _os, sys as _sys
[_sys.modules.pop(n) for n in list(_sys.modules) if n.split(".")[0] in ("selfcheck", "transformer")]
_sys.path[:] = [p for p in _sys.path if not _os.path.basename(p).startswith("selfcheck-")]
_os.chdir({folder!r})
_importlib.invalidate_caches()
del _importlib, _os, _sys
'''
# Where the notebook's `selfcheck` came from (a folder its setup cell unpacked, or None: not imported).
ORIGIN = '''import sys as _sys
print(getattr(_sys.modules.get("selfcheck"), "__file__", None))
del _sys
'''


class Kernel:
    """A `python3` kernel started in `home` with the environment `env` (use as a context manager) that executes
    notebooks one after another."""

    def __init__(self, home, env):
        self.env = env
        self.client = nbclient.NotebookClient(nbformat.v4.new_notebook(), timeout=600, kernel_name="python3",
                                              allow_errors=True, resources={"metadata": {"path": str(home)}})
        self._setup = None

    def __enter__(self):
        self._setup = self.client.setup_kernel(env=self.env)
        self._setup.__enter__()
        return self

    def __exit__(self, *exc):
        return self._setup.__exit__(*exc)

    def run(self, path):
        """Execute the notebook at `path` in its folder as Run All does (errors kept as outputs); return (the executed
        notebook, the file the imported `selfcheck` package came from)."""
        notebook = nbformat.read(str(path), as_version=4)
        self._scratch(RESET.format(folder=str(path.parent)))
        self.client.nb = notebook
        self.client.reset_execution_trackers()
        for index, cell in enumerate(notebook.cells):
            self.client.execute_cell(cell, index)
        return notebook, self._scratch(ORIGIN).strip()

    def _scratch(self, source):
        """Run `source` in the kernel outside any notebook; its printed text (an error fails the test)."""
        cell = nbformat.v4.new_code_cell(source)
        saved, self.client.nb = self.client.nb, nbformat.v4.new_notebook(cells=[cell])
        try:
            self.client.execute_cell(cell, 0, store_history=False)
        finally:
            self.client.nb = saved
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, errors
        return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def check_outputs(notebook):
    """{check cell id: its outputs as text} of the notebook's graded cells that call `verify(` (visible checks)."""
    return {cell["id"]: _text(cell["outputs"]) for cell in notebook.cells
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade") and "verify(" in cell["source"]}


def run_lanes(paths, lanes, home, env):
    """{path: (executed notebook, selfcheck origin)} of every notebook, on `lanes` kernels at once (threads)."""
    from concurrent.futures import ThreadPoolExecutor

    def lane(index):
        folder = home / f"kernel-{index}"
        folder.mkdir()
        with Kernel(folder, env) as kernel:
            return {path: kernel.run(path) for path in paths[index::lanes]}

    with ThreadPoolExecutor(lanes) as pool:
        return {path: done for part in pool.map(lane, range(lanes)) for path, done in part.items()}


def _text(outputs):
    parts = []
    for output in outputs:
        if output.get("output_type") == "stream" and output.get("name") == "stdout":
            parts.append(output["text"])
        elif output.get("output_type") == "error":
            parts.append(f"{output['ename']}: {output['evalue']}")
    return "".join(parts)
