"""The documentation's Python examples run: every ```python block of README.md and of the
user guide (docs/guide/src/*.md), in order, one namespace per file, on the device the
package's tests use (the GPU, else the host device: conftest.py). A block whose fence says
```python,ignore is not run (it needs a GPU, PyTorch or another library, or is a fragment).

Also checks that the README's Rust tour is the guide's first Rust program, which runs as a
documentation test of the cuprum crate (lines starting with `#` are the test's own)."""

from __future__ import annotations

import contextlib
import io
import linecache
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide" / "src"
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def blocks(path: Path, lang: str):
    """(line, info, code) of each fenced block of `lang` in `path`."""
    text = path.read_text()
    for m in FENCE.finditer(text):
        info = m.group(1).strip()
        words = [w.strip() for w in info.split(",")]
        if words[0] == lang:
            yield text.count("\n", 0, m.start()) + 1, words[1:], m.group(2)


def doc_files():
    return [ROOT / "README.md", *sorted(GUIDE.glob("*.md"))]


def with_python(paths):
    return [p for p in paths if any("ignore" not in w for _, w, _ in blocks(p, "python"))]


@pytest.mark.parametrize("path", with_python(doc_files()), ids=lambda p: str(p.relative_to(ROOT)))
def test_python_blocks_run(path):
    namespace: dict = {"__name__": "__doc_example__"}
    for line, words, code in blocks(path, "python"):
        if "ignore" in words:
            continue
        out = io.StringIO()
        name = f"{path.relative_to(ROOT)}:{line}"
        # inspect.getsource (the JIT reads a kernel's source) finds the block by this name
        linecache.cache[name] = (len(code), None, code.splitlines(True), name)
        try:
            compiled = compile(code, name, "exec")
            with contextlib.redirect_stdout(out):
                exec(compiled, namespace)  # noqa: S102  (the documentation's own examples)
        except Exception as e:
            raise AssertionError(
                f"the Python example at {path.relative_to(ROOT)}:{line} failed: "
                f"{type(e).__name__}: {e}\n--- its output ---\n{out.getvalue()}"
            ) from e


def rust_program(code: str) -> str:
    """The program a reader sees: rustdoc's hidden lines (`# ...`, `#`) left out."""
    shown = [
        ln for ln in code.splitlines() if not (ln.strip() == "#" or ln.lstrip().startswith("# "))
    ]
    return "\n".join(shown).strip()


def test_readme_rust_tour_is_the_guides_tested_program():
    readme = [c for _, _, c in blocks(ROOT / "README.md", "rust")]
    guide = [c for _, w, c in blocks(GUIDE / "getting-started-rust.md", "rust") if not w]
    assert readme, "README.md has no Rust tour"
    assert guide, "getting-started-rust.md has no Rust program"
    assert rust_program(readme[0]) == rust_program(guide[0]), (
        "README.md's Rust tour and the first program of docs/guide/src/getting-started-rust.md "
        "(which runs as a doc test) must be the same program"
    )


def test_python_fences_are_known():
    # A typo in a fence's info string would silently skip or break an example.
    for path in doc_files():
        for line, words, _ in blocks(path, "python"):
            assert set(words) <= {"ignore"}, f"{path.name}:{line}: unknown fence words {words}"


def test_every_chapter_with_rust_runs_as_a_doc_test():
    # crates/cuprum/src/lib.rs includes each chapter into a doc-test module by name.
    lib = (ROOT / "crates" / "cuprum" / "src" / "lib.rs").read_text()
    for path in sorted(GUIDE.glob("*.md")):
        if any(True for _ in blocks(path, "rust")):
            assert f'"{path.name}"' in lib or f"/{path.name}" in lib, (
                f"{path.name} has Rust examples: name it in lib.rs's guide_doctests"
            )


# What a user's documentation never holds: dates, times of day, issue numbers, commit hashes
# (those belong to the history, the issues and docs/bench/'s run files).
DATED = re.compile(
    r"\b20\d\d-\d\d-\d\d\b|\bUTC\b|\b[Ii]ssues? #?\d+"
    r"|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b"
)


def test_user_docs_are_not_a_notebook():
    lines = (ROOT / "README.md").read_text().count("\n")
    assert lines <= 250, f"README.md has {lines} lines: it is the front page (<= 250)"
    for path in [*doc_files(), ROOT / "docs" / "for-cupy-users.md"]:
        for n, text in enumerate(path.read_text().splitlines(), 1):
            m = DATED.search(text)
            assert m is None, f"{path.relative_to(ROOT)}:{n}: {m.group(0)!r} (dated prose)"
