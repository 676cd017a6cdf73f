#!/usr/bin/python3
"""Reads ThreadSanitizer report files (TSAN_OPTIONS log_path) and fails on a race of ours.

Debian's gRPC and Abseil are not built with TSan, so their hand-offs between threads are
invisible to it and show up as races (tests/sanitize/tsan.supp says which, and why). A report
counts as ours when one of its racing accesses is in our code: the first frame of that access
outside libstdc++'s headers and the sanitizer runtime is a source file under this repository.
Reports whose accesses are all in gRPC's code are counted and listed by their frame, not failed.

  tsan_ours.py SOURCE_ROOT LOG_DIR
"""
import collections
import os
import pathlib
import re
import sys

ACCESS = re.compile(r"^  (Previous )?(atomic )?(read|write|Read|Write|Atomic read|Atomic write)\b", re.I)
FRAME = re.compile(r"^\s+#\d+ (?P<func>.*?) (?P<file>/\S+?):\d+")


def first_frame_outside_std(stack):
    for func, path in stack:
        if "/c++/" in path or "libsanitizer" in path:
            continue
        return func, path
    return None


def reports(text):
    for block in text.split("==================\nWARNING: ThreadSanitizer:")[1:]:
        yield block


def accesses(report):
    stacks, current = [], None
    for line in report.splitlines():
        if ACCESS.match(line):
            current = []
            stacks.append(current)
        elif current is not None and (m := FRAME.match(line)):
            current.append((m["func"], os.path.normpath(m["file"])))
        elif current is not None and not line.startswith("    "):
            current = None
    return stacks


def main():
    root, logs = sys.argv[1].rstrip("/") + "/", pathlib.Path(sys.argv[2])
    ours, theirs = [], collections.Counter()
    for log in sorted(logs.glob("*")):
        for report in reports(log.read_text(errors="replace")):
            frames = [first_frame_outside_std(s) for s in accesses(report)]
            frames = [f for f in frames if f]
            if any(path.startswith(root) for _, path in frames):
                ours.append((log.name, report))
            else:
                theirs[frames[0][0][:100] if frames else "(no frame)"] += 1
    print(f"tsan: {sum(theirs.values())} reports inside gRPC's own code (not ours), by frame:")
    for func, count in theirs.most_common(10):
        print(f"  {count:5d}  {func}")
    print(f"tsan: {len(ours)} races in our code")
    for name, report in ours[:5]:
        print(f"--- {name}\nWARNING: ThreadSanitizer:{report}")
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())
