"""Keep only the end of a stream a student writes, and count everything it wrote."""

OMITTED_NOTE = "[출력이 너무 길어 앞부분 {count:,}바이트를 생략했습니다]\n"


class Tail:
    """The last `capacity` bytes written, plus the total number of bytes seen."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.total = 0
        self._data = bytearray()

    def add(self, chunk):
        """Record `chunk`, dropping the oldest bytes beyond twice the capacity."""
        self.total += len(chunk)
        self._data += chunk
        if len(self._data) > 2 * self.capacity:
            del self._data[: len(self._data) - self.capacity]

    def text(self):
        """The kept bytes as text (invalid UTF-8 replaced), with a Korean note if some were dropped."""
        kept = bytes(self._data[-self.capacity:])
        omitted = self.total - len(kept)
        text = kept.decode("utf-8", errors="replace")
        return (OMITTED_NOTE.format(count=omitted) + text) if omitted else text
