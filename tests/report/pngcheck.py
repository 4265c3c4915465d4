"""Is a file a valid, non-empty PNG image? (signature, IHDR size, and a full decode)."""
import struct

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def assert_png(path):
    """Fail unless `path` is a decodable PNG of non-zero size; return (width, height)."""
    data = path.read_bytes()
    assert data[:8] == SIGNATURE, f"{path} is not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert width > 0 and height > 0
    import matplotlib.image

    pixels = matplotlib.image.imread(path)
    assert pixels.shape[:2] == (height, width)
    assert pixels.std() > 0, f"{path} is blank"
    return width, height
