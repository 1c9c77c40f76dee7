"""Run every seed program listed in manifest.toml and record what it printed.

    python3 run_recorded.py OUT.json [--timeout SECONDS] [--python EXE] [--only FILE ...]
                                     [--as-cuprum]

With --as-cuprum each program runs with only its import lines changed to cuprum's
(`import cupy as cp` → `import cuprum as cp`, `from cupyx import jit` → `from cuprum import
jit`, `from cupyx.profiler import benchmark` → `from cuprum.profiler import benchmark`): a copy
of it, written beside the original as `_cuprum_<name>`, runs and is removed afterwards.

Each program runs as-is (`EXE FILE`, default: this interpreter) in its own subprocess, with this
folder as the working directory, PYTHONUNBUFFERED=1 (so a program killed by the timeout still
leaves what it printed so far) and a per-program timeout. A program that fails, crashes or times
out is recorded like any other; the rest still run.

OUT.json maps each file name (manifest order) to

    {"rc": int or null, "stdout": str, "stderr_tail": str, "seconds": float, "timed_out": bool}

- rc: the exit status (negative: killed by that signal); null when the program timed out or
  could not be started.
- stdout: the full standard output, with the timing lines masked: every line that matches the
  program's `timing_lines` regex (re.search; an empty regex selects no line) has each number
  replaced by `<t>` and its runs of whitespace collapsed to one space (the padding of a timing
  field depends on its value). Numbers glued to a word or a `-` (`GPU-0`, `l2_norm`) are kept.
- stderr_tail: the last STDERR_TAIL_LINES lines of standard error (not masked).
- seconds: wall-clock time of the subprocess, rounded to milliseconds.

Needs Python 3.11+ (tomllib) and whatever the programs import.
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "manifest.toml"
DEFAULT_TIMEOUT_S = 300.0
STDERR_TAIL_LINES = 40

# A number not glued to a preceding word character, `.` or `-`: masks `59.070`, `+/- 12.387`,
# `0.0123s`, `1e-05`, but leaves `GPU-0`, `l2_norm`, `mse_fn` alone.
NUMBER = re.compile(r"(?<![\w.\-])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
SPACES = re.compile(r"\s+")


def mask_timings(text, timing_lines):
    """Masks the numbers of the lines of `text` that `timing_lines` selects."""
    if not timing_lines:
        return text
    selector = re.compile(timing_lines)
    out = []
    for line in text.splitlines(keepends=True):
        if selector.search(line):
            end = "\n" if line.endswith("\n") else ""
            line = SPACES.sub(" ", NUMBER.sub("<t>", line.rstrip("\n"))).strip() + end
        out.append(line)
    return "".join(out)


def tail(text, n_lines):
    lines = text.splitlines()
    return "\n".join(lines[-n_lines:])


def as_text(data):
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return data


def kill_group(proc):
    """Kills the process group the program runs in (it was started in its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


# The import lines a CuPy program changes to run on cuprum (and nothing else).
IMPORT_SWAPS = {
    "import cupy as cp": "import cuprum as cp",
    "import cupy": "import cuprum as cupy",
    "from cupyx import jit": "from cuprum import jit",
    "from cupyx.profiler import benchmark": "from cuprum.profiler import benchmark",
}


def as_cuprum(path):
    """A copy of the program at `path` with its import lines swapped (see the docstring)."""
    lines = path.read_text().splitlines(keepends=True)
    swapped = []
    for line in lines:
        bare = line.rstrip("\n")
        swapped.append(IMPORT_SWAPS.get(bare, bare) + ("\n" if line.endswith("\n") else ""))
    copy = path.with_name("_cuprum_" + path.name)
    copy.write_text("".join(swapped))
    return copy


def run_one(python, path, timeout_s):
    """Runs one program; returns (rc, stdout, stderr, seconds, timed_out)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            [python, str(path)],
            cwd=str(HERE),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return None, "", f"could not start {python} {path}: {exc!r}", 0.0, False
    try:
        out, err = proc.communicate(timeout=timeout_s)
        return proc.returncode, as_text(out), as_text(err), time.monotonic() - start, False
    except subprocess.TimeoutExpired:
        kill_group(proc)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            out, err = b"", b""
        seconds = time.monotonic() - start
        err = as_text(err) + f"\n[run_recorded] killed after the {timeout_s:g} s timeout\n"
        return None, as_text(out), err, seconds, True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="JSON file to write")
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help=f"seconds per program (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument("--python", default=sys.executable, help="interpreter for the programs")
    parser.add_argument("--only", nargs="+", metavar="FILE", help="run only these manifest files")
    parser.add_argument(
        "--as-cuprum", action="store_true", help="run with the import lines changed to cuprum's"
    )
    args = parser.parse_args(argv)

    with MANIFEST.open("rb") as f:
        manifest = tomllib.load(f)
    names = list(manifest)
    if args.only:
        unknown = sorted(set(args.only) - set(names))
        if unknown:
            parser.error(f"not in the manifest: {', '.join(unknown)}")
        names = [name for name in names if name in args.only]

    results = {}
    for name in names:
        entry = manifest[name]
        path = HERE / name
        if not path.is_file():
            rc, out, err, seconds, timed_out = None, "", f"missing file {path}", 0.0, False
        elif args.as_cuprum:
            copy = as_cuprum(path)
            try:
                rc, out, err, seconds, timed_out = run_one(args.python, copy, args.timeout)
            finally:
                copy.unlink(missing_ok=True)
        else:
            rc, out, err, seconds, timed_out = run_one(args.python, path, args.timeout)
        try:
            stdout = mask_timings(out, entry.get("timing_lines", ""))
        except re.error as exc:
            stdout = out
            err += f"\n[run_recorded] bad timing_lines regex: {exc}\n"
        results[name] = {
            "rc": rc,
            "stdout": stdout,
            "stderr_tail": tail(err, STDERR_TAIL_LINES),
            "seconds": round(seconds, 3),
            "timed_out": timed_out,
        }
        status = "TIMEOUT" if timed_out else f"rc={rc}"
        print(f"{name:<36} {status:<8} {seconds:8.2f} s", flush=True)
        # Write after every program, so an interrupted run still leaves what it has.
        Path(args.out).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")

    if not names:
        Path(args.out).write_text("{}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
