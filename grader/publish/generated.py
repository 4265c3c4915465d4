"""`python -m grader build`: solutions/ → references, exercises/, nbgrader source → release/.

Every generated file is computed in memory first; then either written (stale files removed) or,
with `--check`, compared with what is on disk, naming every file that differs. Reference data is
compared by number within its dtype's tolerance (`drift`), so a build on another CPU rewrites nothing.
`build 05` (or `build 05 07`) builds those chapters only: their references, exercise folder, nbgrader source and
release, and the shared files they ship (`exercises/_selfcheck`); a file left over in a shared folder is found by a
whole build only. CI runs the whole `build --check`.
"""
import sys

from grader import chapters, paths
from grader.checks import given, loading, references, trained

from . import copymodel, drift, exercise, headers, notebook, release, shipping

GENERATED_DIRS = (paths.REFERENCE, paths.EXERCISES, paths.NBGRADER_SOURCE, paths.RELEASE)
IGNORED_PARTS = {"__pycache__", ".pytest_cache", ".ipynb_checkpoints"}


def reference_document(chapter):
    """Run the chapter's solution through its probe, and its bug models on each case: the reference document."""
    probe = chapter.checks.probe
    note = headers.note(f"solutions/{chapter.id}/transformer.py through grader/checks/{chapter.probe_file.name}")
    return references.generate(probe, chapter.module.read_text(encoding="utf-8"), note, chapter.checks.model_code)


def generate(with_release=True, only=None):
    """{absolute path: bytes} of every generated file (of the chapters whose ids are in `only`, when given)."""
    files, nbgrader_sources = {}, {}
    weights = copymodel.document()
    trained.provide(weights)  # the references of chapters 13 on decode with these weights, not an older file's
    files[paths.CHECKS / trained.FILE] = shipping.dump_json(weights)
    files[paths.CHECKS / loading.COURSE_FILE] = shipping.dump_json(notebook.course_document())
    for chapter in chapters.all_chapters():
        if only is not None and chapter.id not in only:
            continue
        document = reference_document(chapter)
        files[chapter.reference_file] = shipping.dump_json(document)
        units = given_units(chapter)
        if units:
            note = headers.note(f"solutions/{chapter.id}/transformer.py by grader/publish/generated.py (given_units)")
            files[chapter.grader_folder / given.file_name(chapter.number)] = shipping.dump_json(
                {"_generated": note, "prelude": given_prelude(chapter), "units": units})
        package = {relative: _kept(paths.EXERCISES / shipping.exercise_path(chapter, relative), data)
                   for relative, data in shipping.files(chapter, document, files).items()}
        for relative, data in exercise.files(chapter, package).items():
            _add(files, paths.EXERCISES / relative, data)
        # The notebook carries its whole package (setup cell): nothing else is shipped beside it.
        source = {f"{chapter.id}.ipynb": notebook.source_notebook(chapter, package)}
        nbgrader_sources[chapter.id] = source
        for relative, data in source.items():
            files[paths.NBGRADER_SOURCE / chapter.id / relative] = data
    if with_release:
        for relative, data in release.files(nbgrader_sources).items():
            files[paths.RELEASE / relative] = data
    return files


def given_units(chapter):
    """{name: source} of the units the chapter ships written (`loading.given_names`), as its solution defines them, in
    the file's order (`checks/given.py` puts them back when a student's changed copy is what fails a check)."""
    import ast

    source = chapter.module.read_text(encoding="utf-8")
    names = loading.given_names(chapter.number)
    return {node.name: ast.get_source_segment(source, node) for node in ast.parse(source).body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in names}


def given_prelude(chapter):
    """The solution's top-level imports: the course's units compile as they do in a file that imports these."""
    import ast

    source = chapter.module.read_text(encoding="utf-8")
    return "\n".join(ast.get_source_segment(source, node) for node in ast.parse(source).body
                     if isinstance(node, (ast.Import, ast.ImportFrom)))


def _add(files, path, data):
    """files[path] = data; a shared framework file that two chapters would write differently is a build error."""
    if files.setdefault(path, data) != data:
        raise RuntimeError(f"two chapters ship different versions of {path.relative_to(paths.ROOT)}")


def _kept(path, data):
    """The bytes at `path` (its copy under `exercises/`) when they already hold reference data `data` within tolerance,
    else `data`: the notebook embeds its package byte for byte, so a build on another CPU must not change it either."""
    return path.read_bytes() if drift.is_reference(path) and drift.unchanged(path, data) else data


def _on_disk(directories):
    for directory in directories:
        if directory.exists():
            for path in directory.rglob("*"):
                if path.is_file() and not IGNORED_PARTS & set(path.parts) and path.name != ".gitkeep":
                    yield path


def _remove_empty_folders(folder, directories):
    """Remove `folder` and its parents while empty, up to (not including) the generated directory holding them."""
    while folder not in directories and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _chapter_directories(only, release):
    """Where the generated files of the chapters `only` (ids) live, apart from the shared ones."""
    roots = [paths.EXERCISES, paths.NBGRADER_SOURCE, *([paths.RELEASE] if release else [])]
    return [root / chapter_id for chapter_id in only for root in roots]


def run(check=False, release=True, only=None):
    """Write the generated files (or, with check, report drift); return the exit status. `only`: chapter ids to build
    (default: every chapter)."""
    files = generate(with_release=release, only=only)
    if only is None:
        directories = [d for d in GENERATED_DIRS if release or d != paths.RELEASE]
    else:
        directories = _chapter_directories(only, release)
    changed = sorted(p for p, data in files.items() if not drift.unchanged(p, data))
    stale = sorted(set(_on_disk(directories)) - set(files))
    if check:
        for path in changed:
            print(f"out of date: {path.relative_to(paths.ROOT)}", file=sys.stderr)
            if path.exists() and drift.is_reference(path):
                for line in drift.differences(path.read_bytes(), files[path]):
                    print(f"    {line}", file=sys.stderr)
        for path in stale:
            print(f"not generated by the build (remove it or its source): {path.relative_to(paths.ROOT)}", file=sys.stderr)
        if changed or stale:
            print("generated files differ from their sources: run `python -m grader build`", file=sys.stderr)
            return 1
        print(f"build --check: {len(files)} generated files are up to date")
        return 0
    for path in changed:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(files[path])
    for path in stale:
        path.unlink()
        _remove_empty_folders(path.parent, directories)
    print(f"build: {len(files)} files ({len(changed)} written, {len(stale)} removed)")
    return 0
