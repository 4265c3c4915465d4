"""The notebook alone is enough: a setup cell that carries the chapter's `selfcheck/` package (the very files shipped
beside the notebook, visible checks only) and unpacks it into a temporary folder when `import selfcheck` fails —
on Colab, or in a folder holding nothing but the notebook."""
import base64
import io
import lzma
import tarfile

CELL_ID = "selfcheck-setup"
SETUP = '''# @title 자가 점검 준비 (실행만 하고 고치지 마세요)
# 이 노트북만 있어도(Colab, 노트북 하나뿐인 폴더) 아래 검사 셀이 돌아가도록, selfcheck 패키지를 찾지 못할 때만
# 여기 담긴 공개 검사를 임시 폴더에 풉니다. 과제 폴더의 selfcheck/와 같은 파일이며 숨겨진 검사는 들어 있지 않습니다.
def _prepare_selfcheck(blob):
    import base64, importlib, io, lzma, sys, tarfile, tempfile
    try:
        importlib.import_module("selfcheck")
        return
    except ImportError:
        pass
    folder = tempfile.mkdtemp(prefix="selfcheck-")
    with tarfile.open(fileobj=io.BytesIO(lzma.decompress(base64.b64decode(blob)))) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(folder, filter="data")
        else:
            archive.extractall(folder)
    sys.path.insert(0, folder)
    importlib.invalidate_caches()


_prepare_selfcheck("{blob}")
del _prepare_selfcheck
'''
# Jupyter(Lab) folds the cell's code; Colab shows it as a form with the @title only.
METADATA = {"cellView": "form", "jupyter": {"source_hidden": True}}


def blob(package):
    """{relative path: bytes} (`selfcheck/…`) → base64 of a deterministic xz-compressed tar."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for name in sorted(package):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(package[name]), 0, 0o644
            archive.addfile(info, io.BytesIO(package[name]))
    return base64.b64encode(lzma.compress(buffer.getvalue(), preset=9 | lzma.PRESET_EXTREME)).decode("ascii")


def setup_source(package):
    """The setup cell's code for the package files `package`."""
    return SETUP.replace("{blob}", blob(package))
