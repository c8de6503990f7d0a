#!/usr/bin/env python3
"""Time to the first question of `interview intent` with the built-in interviewer.

Usage: scripts/bench-first-question.py [--runs N] [--item FILE] [--interview BIN] REPO...

For each REPO (a git worktree), runs `interview intent bench --from ITEM` in a real
pseudo-terminal and measures the wall time from the start of the process to the moment the gate
before the first question ("... clarifying question(s) ...") is on the screen; then stops the run
with SIGTERM and removes its session from the local tier, so that every round starts alike.
Beside each run, in turn, it times `git status --porcelain` in the same worktree: the reference
that shows how loaded the machine was. Prints, per repository, the number of tracked files, the
median time to the first question, git status's median and their ratio; the first round (a
worktree the tool has not seen: it records the root commit and its exclude line) is printed
apart and not in the median. The targets (docs/interviews.md): under 0.5 s on 1,000 files and
under 3 s on 50,000, release build.
"""

import argparse
import os
import pty
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import time

GATE = re.compile(rb"clarifying question|Press Enter")


def first_question(interview, repo, item, timeout=60.0):
    """Seconds until the gate is shown, and the CPU seconds the run had spent by then (all its
    processes: user and system); or raise with what the screen said instead."""
    shutil.rmtree(os.path.join(repo, ".interview", "sessions"), ignore_errors=True)
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(repo)
        os.execv(interview, [interview, "intent", "bench", "--from", item])
    start = time.monotonic()
    seen = b""
    try:
        while True:
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                raise RuntimeError(f"{repo}: no question within {timeout} s; the screen said:\n"
                                   + seen.decode(errors="replace")[-2000:])
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                raise RuntimeError(f"{repo}: the run ended before a question; the screen said:\n"
                                   + seen.decode(errors="replace")[-2000:])
            seen += chunk
            if GATE.search(seen):
                shown = time.monotonic() - start
                # The run's CPU time so far: stop it where it waits (SIGSTOP), then read it.
                os.kill(pid, signal.SIGSTOP)
                cpu = tree_cpu(pid)
                os.kill(pid, signal.SIGCONT)
                return shown, cpu
    finally:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        # Drain the terminal so the run can finish writing, then reap it.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    if not os.read(fd, 65536):
                        break
                except OSError:
                    break
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                break
        else:
            os.kill(pid, signal.SIGKILL)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        os.close(fd)
        shutil.rmtree(os.path.join(repo, ".interview", "sessions"), ignore_errors=True)


def tree_cpu(pid):
    """User and system seconds of `pid` and its waited-for children (from /proc; Linux)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    ticks = sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def git_status(repo):
    start = time.monotonic()
    subprocess.run(["git", "-C", repo, "status", "--porcelain"], check=True,
                   stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+", metavar="REPO")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--item", default=os.path.join(here, "..", "examples", "intents",
                                                        "42-export-csv.md"))
    parser.add_argument("--interview", default=shutil.which("interview") or "interview")
    args = parser.parse_args()
    item = os.path.abspath(args.item)
    interview = os.path.abspath(args.interview) if os.sep in args.interview else args.interview
    if os.sep not in interview:
        sys.exit(f"no `{interview}` on PATH: give --interview target/release/interview")
    load = os.getloadavg()[0]
    print(f"load {load:.2f}, {os.cpu_count()} cores, {args.runs} rounds, item {args.item}")
    for repo in args.repos:
        repo = os.path.abspath(repo)
        files = subprocess.run(["git", "-C", repo, "ls-files"], check=True,
                               capture_output=True).stdout.count(b"\n")
        first, _ = first_question(interview, repo, item)
        ours, cpus, theirs = [], [], []
        for _ in range(args.runs):
            theirs.append(git_status(repo))
            shown, cpu = first_question(interview, repo, item)
            ours.append(shown)
            cpus.append(cpu)
        q, c, g = (statistics.median(x) for x in (ours, cpus, theirs))
        print(f"{os.path.basename(repo)}: {files} files; first question {q:.3f} s, CPU {c:.2f} s "
              f"(first round {first:.3f} s), git status {g:.3f} s, ratio {q / g:.1f}x")


if __name__ == "__main__":
    main()
