"""What a page fault costs on this machine: a page copied on write in a forked child, a fresh zero-filled page, and a
write to a page already mapped (one byte written per 4 KiB page). Not a test.

    .venv/bin/python bench/fault_cost.py            # 2,000 pages, three rounds
"""
import argparse
import mmap
import os
import time

PAGE = 4096


def _write_each_page(buffer, pages, value):
    """Seconds to write one byte to each page of `buffer`."""
    started = time.perf_counter()
    for index in range(pages):
        buffer[index * PAGE] = value
    return time.perf_counter() - started


def one_round(pages):
    """(copied, zero-filled, already mapped) microseconds per page, measured in a forked child."""
    shared = mmap.mmap(-1, pages * PAGE)
    _write_each_page(shared, pages, 1)  # present in the parent: the child's writes copy them
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        fresh = mmap.mmap(-1, pages * PAGE)
        times = (_write_each_page(shared, pages, 2), _write_each_page(fresh, pages, 2), _write_each_page(fresh, pages, 3))
        os.write(write_end, " ".join(f"{seconds / pages * 1e6:.2f}" for seconds in times).encode())
        os._exit(0)
    os.close(write_end)
    answer = os.read(read_end, 200).decode()
    os.waitpid(pid, 0)
    return [float(value) for value in answer.split()]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for _ in range(args.rounds):
        copied, zeroed, mapped = one_round(args.pages)
        print(f"copied on write {copied:.2f} µs/page, zero-filled {zeroed:.2f} µs/page, already mapped {mapped:.2f} µs/page")


if __name__ == "__main__":
    main()
