#!/usr/bin/env python3
"""The Python stdlib peer (bench/README.md): the same rules as every reader in the bench, written as a
careful Python programmer would with the standard library alone. It times its own loop after one
untimed warm-up, like bench/c/scan.c, and prints "<wall ns per scan> <CPU ns per scan> <live records>".
Usage: scan.py SESSIONS_DIR OUR_PID_DOMAIN ITERATIONS"""
import json
import os
import sys
import time

FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
MAX = 256 * 1024


def start_of(pid):
    """None when dead (zombie), '' when the stat cannot be read, else the start time text."""
    try:
        with open(f"/proc/{pid}/stat", "rb", buffering=0) as f:
            text = f.read(1024)
    except OSError:
        return ""
    rest = text[text.rindex(b")") + 2:].split(b" ", 21)
    if rest[0] in (b"Z", b"X"):
        return None
    return rest[19].decode()


def scan(sessions_dir, domain):
    live = []
    for entry in os.scandir(sessions_dir):
        name = entry.name
        if not name.endswith(".json") or not name[:-5].isdigit() or name[0] == "0" or not name[:-5].isascii():
            continue
        pid = int(name[:-5])
        try:
            fd = os.open(name, FLAGS, dir_fd=dir_fd)
        except OSError:
            continue
        try:
            st = os.fstat(fd)
            if not (st.st_mode & 0o170000 == 0o100000) or st.st_size > MAX:
                continue
            data = os.read(fd, MAX + 1)
        except OSError:
            continue
        finally:
            os.close(fd)
        if not data or len(data) > MAX:
            continue
        try:
            r = json.loads(data)
        except ValueError:
            continue
        if not isinstance(r, dict) or r.get("pid") != pid or type(r.get("pid")) is not int:
            continue
        sid = r.get("sessionId")
        if not isinstance(sid, str) or sid == "":
            continue
        dom = r.get("pidDomain")
        if isinstance(dom, str) and dom != domain:
            live.append(r)
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        except PermissionError:
            pass
        start = start_of(pid)
        if start is None:
            continue
        recorded = r.get("procStart")
        if start and isinstance(recorded, str) and recorded != start:
            continue
        live.append(r)
    live.sort(key=lambda r: r["pid"])
    return live


if __name__ == "__main__":
    sessions_dir, domain, iterations = sys.argv[1], sys.argv[2], int(sys.argv[3])
    dir_fd = os.open(sessions_dir, os.O_RDONLY | os.O_DIRECTORY)
    live = scan(sessions_dir, domain)
    t0, c0 = time.perf_counter_ns(), time.process_time_ns()
    for _ in range(iterations):
        live = scan(sessions_dir, domain)
    wall, cpu = time.perf_counter_ns() - t0, time.process_time_ns() - c0
    print(f"{wall / iterations:.0f} {cpu / iterations:.0f} {len(live)}")
