"""The pytest plugin of ``scripts/cupy-core-tests`` (``-p cupy_core_tests.plugin``).

Imported before collection, it installs the alias (``import cupy`` gives cuprum). While
the tests run it sorts each into:

- **passed**;
- **not applicable**: listed in ``not_applicable``, or it reached a CuPy internal (a
  stand-in of a private name, a private attribute such as ``kernel._cached_codes``) —
  reported as a skip whose reason starts with ``not applicable:``;
- **GPU only** (on cuprum's host device): the test needs what only a GPU has — listed in
  ``not_applicable.GPU_ONLY``, or the host device said so (``GPU_ONLY_ERRORS``) —
  reported as a skip whose reason starts with ``GPU only:``;
- **skipped**: pytest skips (more GPUs, HIP, xfail …);
- **failed**, with a category: ``missing feature`` (a public CuPy name cuprum lacks, or
  cuprum's ``UnsupportedError``/``NotImplementedError``), ``environment`` (a tool the
  test needs is not installed), or ``failure`` (a different result or error: a candidate
  bug).

At the end it writes ``results.json`` (every test, the totals per file, the failures
grouped by cause, what the alias added) and ``summary.txt`` to ``--cupy-core-out``.
"""

from __future__ import annotations

import collections
import json
import os
import platform
import re
import sys
import time
import traceback

import pytest

from cupy_core_tests import alias

alias.install()

from cupy_core_tests.not_applicable import GPU_ONLY, GPU_ONLY_ERRORS, NOT_APPLICABLE

NA_PREFIX = "not applicable: "
GPU_PREFIX = "GPU only: "
ON_HOST = os.environ.get("CUPRUM_DEVICE") == "host"
_patterns = [(re.compile(p), NA_PREFIX + reason) for p, reason in NOT_APPLICABLE]
if ON_HOST:
    _patterns += [(re.compile(p), GPU_PREFIX + reason) for p, reason in GPU_ONLY]
_gpu_errors = [(re.compile(p), reason) for p, reason in GPU_ONLY_ERRORS]
_tests: dict[str, dict] = {}
_skip_errors: dict[str, str] = {}  # the error behind a "not applicable"/"GPU only" verdict
_collection: list[dict] = []
_started = time.time()


def pytest_addoption(parser):
    parser.addoption("--cupy-core-out", default=None, help="folder for results.json, summary.txt")
    parser.addoption(
        "--cupy-core-label", default="", help="what ran (device, commit), for the summary"
    )
    parser.addoption(
        "--cupy-core-time-limit",
        type=float,
        default=0,
        help="seconds after which the remaining tests are skipped (0: no limit)",
    )


def pytest_collection_modifyitems(config, items):
    for item in items:
        for pattern, reason in _patterns:
            if pattern.search(item.nodeid):
                item.add_marker(pytest.mark.skip(reason=reason))
                break


def pytest_runtest_setup(item):
    limit = item.config.getoption("--cupy-core-time-limit")
    if limit and time.time() - _started > limit:
        pytest.skip(f"not run: the run's time limit ({limit:g} s) was reached")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    alias.state["in_test"] = True
    try:
        yield
    finally:
        alias.state["in_test"] = False


def _chain(exc):
    seen = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


_ATTR = re.compile(r"has no attribute '([^']+)'")


def classify(exc):
    """``(category, detail)`` of a test's exception: ``not applicable``, ``GPU only``,
    ``missing feature``, ``environment`` or ``failure``."""
    chain = _chain(exc)
    for e in chain:
        if isinstance(e, alias.NotApplicable):
            return "not applicable", str(e)
        if isinstance(e, alias.MissingInCuprum):
            text = str(e)
            if "is not installed here" in text:
                return "environment", text
            return "missing feature", text
    for e in chain:
        if "the nvcc backend needs the CUDA toolkit's nvcc" in str(e):
            return "environment", "nvcc is not installed here (cuprum's nvcc backend)"
    if ON_HOST:
        for e in chain:
            for pattern, reason in _gpu_errors:
                if pattern.search(str(e)):
                    return "GPU only", reason
    for e in chain:
        if isinstance(e, AttributeError):
            m = _ATTR.search(str(e))
            if m:
                name = m.group(1)
                if name.startswith("_") and not name.startswith("__"):
                    return "not applicable", f"private attribute `{name}` (a CuPy internal)"
                return "missing feature", f"no attribute `{name}` ({_first_line(e)})"
        if getattr(e, "kind", None) == "Unsupported" or isinstance(e, NotImplementedError):
            return "missing feature", f"{type(e).__name__}: {_first_line(e)}"
    text = _first_line(exc)
    if not text:  # a bare assert: where it failed says more
        frames = traceback.extract_tb(exc.__traceback__)
        if frames:
            last = frames[-1]
            text = f"at {os.path.basename(last.filename)}:{last.lineno} ({last.line})"
    return "failure", f"{type(exc).__name__}: {text}"


def _first_line(e, limit=300):
    text = str(e).strip().splitlines()
    line = text[0] if text else ""
    return line[:limit]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if call.excinfo is None or not rep.failed:
        return
    category, detail = classify(call.excinfo.value)
    if category in ("not applicable", "GPU only"):
        prefix = NA_PREFIX if category == "not applicable" else GPU_PREFIX
        _skip_errors[item.nodeid] = f"{type(call.excinfo.value).__name__}: " + _first_line(
            call.excinfo.value
        )
        rep.outcome = "skipped"
        rep.longrepr = (str(item.path), item.location[1], prefix + detail)
    else:
        item.stash[_CATEGORY] = (category, detail)


_CATEGORY = pytest.StashKey[tuple]()
OUTCOMES = ("passed", "failed", "skipped", "not applicable", "GPU only")


def _file_of(nodeid):
    return nodeid.split("::", 1)[0]


def pytest_runtest_logreport(report):
    rec = _tests.setdefault(
        report.nodeid,
        {"test": report.nodeid, "file": _file_of(report.nodeid), "outcome": None, "duration": 0.0},
    )
    rec["duration"] = round(rec["duration"] + report.duration, 3)
    if report.skipped and rec["outcome"] is None:
        if hasattr(report, "wasxfail"):
            rec["outcome"], rec["detail"] = "skipped", f"xfail: {report.wasxfail}"
            return
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        reason = reason.removeprefix("Skipped: ")
        if reason.startswith(NA_PREFIX):
            rec["outcome"], rec["detail"] = "not applicable", reason[len(NA_PREFIX) :]
        elif reason.startswith(GPU_PREFIX):
            rec["outcome"], rec["detail"] = "GPU only", reason[len(GPU_PREFIX) :]
        else:
            rec["outcome"], rec["detail"] = "skipped", reason
    elif report.failed and _strict_xpass(report) and rec["outcome"] is None:
        # CuPy's test marks a CuPy shortfall (xfail, strict) that cuprum does not have
        rec["outcome"] = "passed"
        rec["detail"] = "passes where CuPy's test expects a failure: " + _message(report)
    elif report.failed and rec["outcome"] != "failed":
        rec["outcome"] = "failed"
        rec["phase"] = report.when
        rec["message"] = _message(report)
    elif report.when == "call" and report.passed and rec["outcome"] is None:
        rec["outcome"] = "passed"


def _strict_xpass(report):
    text = getattr(report, "longreprtext", "") or str(report.longrepr)
    return report.when == "call" and text.startswith("[XPASS(strict)]")


def _message(report, limit=1500):
    text = getattr(report, "longreprtext", "") or str(report.longrepr)
    lines = [ln for ln in text.splitlines() if ln.startswith("E ")]
    return ("\n".join(lines) or text)[-limit:]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield
    found = item.stash.get(_CATEGORY, None)
    if found is not None and item.nodeid in _tests:
        _tests[item.nodeid]["category"], _tests[item.nodeid]["detail"] = found


def pytest_collectreport(report):
    if not report.failed:
        return
    text = str(report.longrepr)
    if "NotApplicable" in text:
        outcome, category = "not applicable", "not applicable"
    elif "MissingInCuprum" in text:
        outcome, category = "failed", "missing feature"
    else:
        outcome, category = "failed", "collection error"
    lines = [ln for ln in text.splitlines() if ln.startswith("E ")]
    _collection.append(
        {
            "test": report.nodeid,
            "file": _file_of(report.nodeid),
            "outcome": outcome,
            "category": category,
            "detail": ("\n".join(lines) or text)[-1500:],
        }
    )


def _cause(rec):
    detail = rec.get("detail", "")
    return re.sub(r"0x[0-9a-f]+|\d+", "N", detail)[:200]


def _reasons(tests, outcome):
    found = collections.Counter(r.get("detail", "")[:300] for r in tests if r["outcome"] == outcome)
    return dict(found.most_common())


def _summarise(label):
    for nodeid, error in _skip_errors.items():
        if nodeid in _tests:
            _tests[nodeid]["message"] = error
    tests = list(_tests.values()) + _collection
    outcomes = OUTCOMES
    per_file = collections.OrderedDict()
    for rec in sorted(tests, key=lambda r: r["file"]):
        if rec.get("outcome") is None:
            rec["outcome"] = "failed"
            rec.setdefault("detail", "no outcome recorded")
        row = per_file.setdefault(rec["file"], dict.fromkeys(outcomes, 0))
        row[rec["outcome"]] += 1
        if rec.get("category") == "collection error":
            row["collection errors"] = row.get("collection errors", 0) + 1
    totals = dict.fromkeys(outcomes, 0)
    for row in per_file.values():
        for k in outcomes:
            totals[k] += row[k]
    causes = collections.defaultdict(list)
    for rec in tests:
        if rec["outcome"] == "failed":
            rec.setdefault("category", "failure")
            causes[(rec["category"], _cause(rec))].append(rec["test"])
    ranked = sorted(causes.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    import cuprum

    return {
        "label": label,
        "python": platform.python_version(),
        "numpy": __import__("numpy").__version__,
        "cuprum": getattr(cuprum, "__version__", "?"),
        "device": cuprum._cuprum.config().get("Device")
        or cuprum._cuprum.config().get("Device 0 Name", "?"),
        "seconds": round(time.time() - _started, 1),
        "totals": totals,
        "files": per_file,
        "failure_causes": [
            {"category": cat, "cause": cause, "count": len(ids), "tests": ids}
            for (cat, cause), ids in ranked
        ],
        "not_applicable_reasons": _reasons(tests, "not applicable"),
        "gpu_only_reasons": _reasons(tests, "GPU only"),
        "skip_reasons": _reasons(tests, "skipped"),
        "alias_added": alias.added,
        "real_cupy_imported": alias.real_cupy_modules(),
        "tests": sorted(tests, key=lambda r: r["test"]),
    }


def _table(summary):
    cols = OUTCOMES
    width = max([len("file")] + [len(f) for f in summary["files"]] + [len("total")])
    head = f"{'file':<{width}}  " + "  ".join(f"{c:>14}" for c in cols)
    lines = [
        f"CuPy kernel tests on cuprum: {summary['label']}",
        (
            f"device: {summary['device']}; Python {summary['python']}, "
            f"NumPy {summary['numpy']}, cuprum {summary['cuprum']}; {summary['seconds']} s"
        ),
        "",
        head,
        "-" * len(head),
    ]
    for f, row in summary["files"].items():
        extra = (
            f"  ({row['collection errors']} collection errors)"
            if row.get("collection errors")
            else ""
        )
        lines.append(f"{f:<{width}}  " + "  ".join(f"{row[c]:>14}" for c in cols) + extra)
    lines.append("-" * len(head))
    lines.append(f"{'total':<{width}}  " + "  ".join(f"{summary['totals'][c]:>14}" for c in cols))
    lines += ["", "failures by cause (most tests first):"]
    for c in summary["failure_causes"]:
        lines.append(f"  {c['count']:>5}  [{c['category']}] {c['cause']}")
        for t in c["tests"][:3]:
            lines.append(f"           {t}")
        if len(c["tests"]) > 3:
            lines.append(f"           … and {len(c['tests']) - 3} more")
    for title, key in (
        ("not applicable, by reason:", "not_applicable_reasons"),
        ("GPU only (on the host device), by reason:", "gpu_only_reasons"),
        ("skipped, by reason:", "skip_reasons"),
    ):
        if summary[key]:
            lines += ["", title]
            lines += [f"  {n:>5}  {reason}" for reason, n in summary[key].items()]
    real = summary["real_cupy_imported"]
    lines += ["", "real CuPy imported: " + (", ".join(real) if real else "no")]
    return "\n".join(lines) + "\n"


def pytest_sessionfinish(session, exitstatus):
    out = session.config.getoption("--cupy-core-out")
    if not out:
        return
    os.makedirs(out, exist_ok=True)
    summary = _summarise(session.config.getoption("--cupy-core-label"))
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(summary, f, indent=1, default=str)
    text = _table(summary)
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text)
    sys.stdout.write("\n" + text)
