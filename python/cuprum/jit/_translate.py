"""Python function (its AST) → CUDA C++, for one signature of argument types.

Design decisions:

- **One pass** over the function's statements writes the C++ while typing it; the source
  is parsed once per function (``inspect``) and kept, so later signatures never re-read it.
- **Variables** keep the type of their first assignment (CuPy's rule); later assignments
  must be ``same_kind`` casts. A variable first assigned at the function's top level is
  declared there (``long long total = 0ll;``); one first assigned inside a block is declared
  at the top of the function, as CuPy does. A ``for`` variable used only inside its loops
  is the loop's own (``for (int i = 0; i < n; ++i)``); otherwise the loop counts in a
  hidden counter and assigns the variable, keeping Python's value after the loop.
- **Globals and closure variables** are constants, read when the kernel is first
  translated (CuPy's rule); a constant assigned at the top level of the kernel stays a
  constant (``dt = cp.float32``).
- **Errors** keep their class (``TypeError``, ``NotImplementedError``, ``NameError``...)
  and say what failed, then where: the file, the line, the function, and the source with
  the offending lines marked ``>``.
- **Value ranges of variables** (for ``//`` and ``%``, see :mod:`cuprum.jit._types`): a
  function with ``//`` or ``%`` is translated again until the intervals its integer
  variables were assumed to hold cover every value assigned to them (from "no value" up,
  bounds widened in a few steps: usually 3-4 rounds, about 1 ms each); each of a loop's own
  counters has its ``range()``'s interval. No path is followed: ``if i < n`` tells nothing.
- **Device functions** (``rawkernel(device=True)``) are written once per signature of
  argument types (and per code and closure values: a factory's equal functions share one),
  before their first caller; an array argument brings the extents and
  strides the callee uses as extra parameters. Recursion is refused (``ValueError``).
"""

from __future__ import annotations

import ast
import inspect
import linecache
import re
import textwrap
import types

import numpy

from cuprum.jit import _builtins as B
from cuprum.jit import _types as T
from cuprum.jit import cg as _cg
from cuprum.jit._types import Const, Data, TupleValue

_CPP_KEYWORDS = frozenset(
    [
        "auto",
        "bool",
        "break",
        "case",
        "catch",
        "char",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "double",
        "else",
        "enum",
        "explicit",
        "extern",
        "float",
        "for",
        "friend",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "mutable",
        "namespace",
        "new",
        "operator",
        "private",
        "protected",
        "public",
        "register",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "template",
        "this",
        "throw",
        "try",
        "typedef",
        "typename",
        "union",
        "unsigned",
        "using",
        "virtual",
        "void",
        "volatile",
        "while",
        "dim3",
        "threadIdx",
        "blockIdx",
        "blockDim",
        "gridDim",
        "warpSize",
        "cg",
        "complex",
        "float16",
        "min",
        "max",
        "abs",
        "floor",
        "ceil",
        "sqrt",
        "exp",
        "log",
        "sin",
        "cos",
        "tan",
        "pow",
        "fabs",
        "fmod",
    ]
)


_RESERVED = re.compile(r"\w+_[ns]\d+|\w+_(?:stop|step)|_(?:it|smem|t|r)\d+|\w+_\d+")


def c_name(name: str) -> str:
    """The C++ name of a Python name: C++ keywords, CUDA's math names and the names the
    translator makes (``x_n0``, ``i_stop``, ``_it1``, ``f_1``) get a trailing underscore."""
    if name in _CPP_KEYWORDS or name.startswith("_jit") or _RESERVED.fullmatch(name):
        return name + "_"
    return name


class JitError(Exception):
    """An error while translating, with the node it happened at."""

    def __init__(self, error: BaseException, node):
        super().__init__(str(error))
        self.error = error
        self.node = node


def _function_source(func, filename):
    """``(text, first line, module AST)`` of a plain function's definition, read from its
    file's lines by indentation (``inspect.getsourcelines`` tokenizes, which costs a few ms
    on a process's first kernel): the text up to the first line at most as indented as the
    ``def`` that parses as that one function (a line of a string or bracket at a lower
    indentation is passed over); None where none does (then ``inspect`` reads it)."""
    code = getattr(func, "__code__", None)
    if code is None or filename is None:
        return None
    linecache.checkcache(filename)
    lines = linecache.getlines(filename, getattr(func, "__globals__", None))
    start = code.co_firstlineno - 1
    if not 0 <= start < len(lines):
        return None
    head = lines[start]
    indent = len(head) - len(head.lstrip())
    in_header = not head.lstrip().startswith(("def ", "async def "))
    end = start + 1
    for _ in range(50):
        while end < len(lines):
            line = lines[end]
            stripped = line.strip()
            if (
                stripped
                and not stripped.startswith("#")
                and len(line) - len(line.lstrip()) <= indent
            ):
                if not (in_header and stripped.startswith(("@", "def ", "async def "))):
                    break
                in_header = not stripped.startswith(("def ", "async def "))
            end += 1
        found = _parse_cut(lines, start, end, indent, func.__name__)
        if found is not None or end >= len(lines):
            return found
        end += 1  # a line of a string or bracket: the function goes on
    return None


def _parse_cut(lines, start, end, indent, name):
    while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip()[0] == "#"):
        end -= 1
    # the def line's indentation off each line that has it (a string's line at column 0
    # stays: textwrap.dedent would leave every line, and the def, indented)
    text = "".join(x[indent:] if not x[:indent].strip() else x for x in lines[start:end])
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    body = tree.body
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef) or body[0].name != name:
        return None
    return text, start + 1, tree


class Source:
    """A function's parsed source: its AST, file and first line (parsed once)."""

    def __init__(self, func):
        if not callable(func):
            raise TypeError("`func` must be a callable object.")
        try:
            filename = inspect.getsourcefile(func)
        except TypeError:
            filename = None
        if filename == "<stdin>":
            raise RuntimeError(
                f"JIT needs access to the Python source code for {func}"
                " but it cannot be retrieved within the Python interactive interpreter."
            )
        quick = _function_source(func, filename)
        if quick is not None:
            self.text, first, tree = quick
        else:
            try:
                lines, first = inspect.getsourcelines(func)
            except (OSError, TypeError) as e:
                raise RuntimeError(f"JIT cannot read the source code of {func}: {e}") from None
            self.text = textwrap.dedent("".join(lines))
            tree = ast.parse(self.text)
        node = tree.body[0]
        if not isinstance(node, ast.FunctionDef):
            raise NotImplementedError(f"Not supported: {type(node).__name__}")
        self.tree = node
        self.filename = filename or "<unknown>"
        self.first = first
        self.name = func.__name__
        cv = inspect.getclosurevars(func)
        self.consts = {**cv.builtins, **cv.globals, **cv.nonlocals}
        # names only annotations mention (not among the code's names)
        self.globals = getattr(func, "__globals__", {})
        self.loop_local = None  # names each loop may declare as its own (once)
        # whether the code divides (// or %): only then are value ranges looked for
        self.divides = any(
            isinstance(n, (ast.BinOp, ast.AugAssign)) and isinstance(n.op, (ast.FloorDiv, ast.Mod))
            for n in ast.walk(node)
        )

    def message(self, error: BaseException, node) -> str:
        """``error``'s message with the place it happened."""
        start = getattr(node, "lineno", None)
        if start is None:
            return str(error)
        end = getattr(node, "end_lineno", start) or start
        lines = self.text.rstrip("\n").split("\n")
        shown = []
        for i, line in enumerate(lines, 1):
            mark = "> " if start <= i <= end else "  "
            shown.append(f"{mark}{line}".rstrip())
        lineno = self.first + start - 1
        where = f'  File "{self.filename}", line {lineno}, in {self.name}'
        return f"{error}\n\n{where}\n" + "\n".join(shown)


def reraise(source: Source, e: JitError):
    msg = source.message(e.error, e.node)
    cls = type(e.error)
    try:
        new = cls(msg)
    except Exception:  # noqa: BLE001  (a class that wants other constructor arguments)
        new = TypeError(msg)
    raise new from None


class Generated:
    """The program being written: helpers, includes, device functions, in order."""

    def __init__(self):
        self.helpers: list[str] = []
        self.includes: set[str] = set()
        self.functions: list[str] = []
        self.device: dict = {}  # (func, types) -> (name, ret, extras) or None while translating
        self.names: set[str] = set()
        self.cooperative = False

    def code(self) -> str:
        head = []
        if "half" in self.includes:
            head.append("#include <cuprum/half.cuh>")
        if "complex" in self.includes:
            head.append("#include <cuprum/complex.cuh>")
            head.append("using cuprum::complex;")
        if "cg" in self.includes:
            head.append("#include <cooperative_groups.h>")
            head.append("namespace cg = cooperative_groups;")
        if "cg_async" in self.includes:
            from cuprum.jit.cg import ASYNC_HELPERS

            head.append(ASYNC_HELPERS)
        parts = ["\n".join(head)] if head else []
        body = "\n".join(self.functions)
        for h in self.helpers:
            text = B.HELPERS[h]
            fn = re.search(r"(_jit_\w+)\(", text).group(1)
            if f"{fn}(" in body or f"{fn}<" in body:  # a peephole may have dropped its use
                parts.append(text)
        parts += self.functions
        return "\n\n".join(parts) + "\n"

    def unique_name(self, name: str) -> str:
        base, n = name, 1
        while name in self.names:
            name = f"{base}_{n}"
            n += 1
        self.names.add(name)
        return name


def _loop_local_names(fn: ast.FunctionDef) -> set:
    """Names that appear only as the targets and inside the bodies of ``for`` loops over
    them (each loop may then declare its own counter); nested loops over one name are
    left out."""
    everywhere: dict[str, set] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name):
            everywhere.setdefault(n.id, set()).add(id(n))
    inside: dict[str, set] = {}
    nested = set()
    for node in ast.walk(fn):
        if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name)):
            continue
        name = node.target.id
        for sub in [node.target, *node.body]:
            for n in ast.walk(sub):
                if isinstance(n, ast.Name) and n.id == name:
                    inside.setdefault(name, set()).add(id(n))
                elif isinstance(n, ast.For) and getattr(n.target, "id", None) == name:
                    nested.add(name)
    return {k for k, ids in inside.items() if k not in nested and ids == everywhere[k]}


def _assigned_names(stmts) -> set:
    out = set()
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out.add(n.id)
    return out


class Method:
    """``value.name`` waiting for its call."""

    def __init__(self, value, name):
        self.value = value
        self.name = name


class Translator:
    """Writes one function for one signature."""

    def __init__(
        self, source: Source, arg_types, generated: Generated, name: str, attrs: str, ranges=None
    ):
        self.source = source
        # value ranges of integer variables: those assumed (None: none known), those seen
        # assigned (see translate_function)
        self.assumed = ranges
        self.collected: dict = {}
        self.var_types: dict = {}
        self.read_empty: dict = {}
        self.first_read: dict = {}
        self.loop_ranges: dict = {}  # a loop's own counter (name) -> its range
        self.generated = generated
        self.name = name
        self.attrs = attrs
        self.consts = dict(source.consts)
        self.vars: dict[str, Data] = {}
        self.decls: list[str] = []
        self.ret_type = None
        self.counter = 0
        self.params: list[str] = []
        self.arrays: list[T.ArrayInfo | None] = []
        if source.loop_local is None:
            source.loop_local = _loop_local_names(source.tree)
        self.loop_local = source.loop_local
        self.shared_hint = None
        # code of x % y -> (x, y, loop type, whether y is known non-zero)
        self.remainders: dict[str, tuple] = {}
        fn = source.tree
        a = fn.args
        if a.vararg is not None:
            raise JitError(NotImplementedError("`*args` is not supported currently."), fn)
        if a.kwarg is not None:
            raise JitError(NotImplementedError("`**kwargs` is not supported currently."), fn)
        if a.kwonlyargs:
            raise JitError(
                NotImplementedError("keyword only arguments are not supported currently."), fn
            )
        if a.defaults:
            raise JitError(NotImplementedError("Default values are not supported currently."), fn)
        names = [x.arg for x in a.posonlyargs + a.args]
        if len(names) != len(arg_types):
            raise JitError(
                TypeError(
                    f"{fn.name}() takes {len(names)} positional arguments but "
                    f"{len(arg_types)} were given."
                ),
                fn,
            )
        for pname, t in zip(names, arg_types):
            cname = self.cname(pname)
            if isinstance(t, T.ArrayInfo):
                info = T.ArrayInfo(cname, t.dtype, t.ndim, t.contiguous, t.idx32)
                self.arrays.append(info)
                self.note_type(T.Scalar(t.dtype))
                self.vars[pname] = Data(cname, T.Array(info))
                self.params.append(f"{T.Scalar(t.dtype).element_name}* {cname}")
            else:
                self.arrays.append(None)
                self.note_type(t.child if isinstance(t, T.Ptr) else t)
                self.vars[pname] = Data(cname, t)
                self.collect(pname, None, t)
                self.params.append(f"{t} {cname}")

    # ------------------------------------------------------------------ bookkeeping

    def cname(self, name: str) -> str:
        return c_name(name)

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def shared_name(self) -> str:
        hint = self.shared_hint
        if hint is not None and hint not in self.vars and hint not in self.consts:
            self.shared_hint = None
            return self.cname(hint)
        return self.fresh("_smem")

    def collect(self, name: str, rng, t):
        """Notes a value of range ``rng`` stored in integer variable ``name`` of type ``t``."""
        if T.bounds(t) is None:
            return
        self.var_types[name] = t
        self.collected[name] = T.join(self.collected.get(name, T.EMPTY), T.fit(rng, t))

    def read(self, name: str, var: Data) -> Data:
        """Variable ``name`` read: its Data with the range it is assumed to hold."""
        if name in self.loop_ranges:
            return Data(var.code, var.ctype, self.loop_ranges[name])
        if self.assumed is None or T.bounds(var.ctype) is None:
            return var
        # what is assumed, and what this round has seen assigned so far (the same in the
        # last round; earlier, a head start)
        rng = T.join(self.assumed.get(name, T.EMPTY), self.collected.get(name, T.EMPTY))
        if rng is T.EMPTY:
            self.read_empty[name] = var.ctype
        self.first_read.setdefault(name, rng)
        return Data(var.code, var.ctype, rng)

    def decl(self, line: str):
        self.decls.append(line)

    def need_helper(self, name: str):
        if name not in self.generated.helpers:
            self.generated.helpers.append(name)

    def note_type(self, t):
        if isinstance(t, T.Scalar):
            if t.char == "e":
                self.generated.includes.add("half")
            elif t.kind == "c":
                self.generated.includes.add("complex")

    # ------------------------------------------------------------------ function

    def translate(self) -> str:
        fn = self.source.tree
        body = self.stmts(fn.body, top=True)
        ret = self.ret_type if self.ret_type is not None else T.void
        params = list(self.params)
        for info in self.arrays:
            if info is not None:
                for kind, k in info.used:
                    params.append(f"{info.index_ctype} {info.name}_{kind}{k}")
        head = f"{self.attrs} {ret} {self.name}({', '.join(params)})"
        lines = [head + " {"] + ["  " + d for d in self.decls + body] + ["}"]
        return "\n".join(lines)

    def extras(self):
        """The hidden parameters, per array parameter: [(position, kind, axis)]."""
        out = []
        for i, info in enumerate(self.arrays):
            if info is not None:
                out += [(i, kind, k) for kind, k in info.used]
        return out

    # ------------------------------------------------------------------ statements

    def stmts(self, stmts, top=False) -> list[str]:
        out = []
        for s in stmts:
            try:
                out += self.stmt(s, top)
            except JitError:
                raise
            except Exception as e:  # noqa: BLE001  (any error gets the statement's place)
                raise JitError(e, s) from None
        return out

    def block(self, stmts) -> list[str]:
        return [line if line.startswith("#") else "  " + line for line in self.stmts(stmts)]

    def stmt(self, s, top) -> list[str]:
        if isinstance(s, ast.Expr):
            v = self.expr(s.value)
            if isinstance(v, (Const, TupleValue)):
                return []
            return [v.code + ";"]
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                raise NotImplementedError("chained assignment (a = b = c) is not supported")
            target = s.targets[0]
            if isinstance(target, ast.Name):
                self.shared_hint = target.id
            try:
                value = self.expr(s.value)
            finally:
                self.shared_hint = None
            return self.assign(target, value, top)
        if isinstance(s, ast.AnnAssign):
            return self.ann_assign(s, top)
        if isinstance(s, ast.AugAssign):
            return self.aug_assign(s)
        if isinstance(s, ast.If):
            cond = self.expr(s.test)
            if isinstance(cond, Const):
                return self.stmts(s.body if cond.obj else s.orelse, top)
            out = [f"if ({self.condition(cond)}) {{"] + self.block(s.body)
            orelse = s.orelse
            while len(orelse) == 1 and isinstance(orelse[0], ast.If):
                elif_ = orelse[0]
                try:
                    c = self.expr(elif_.test)
                    if isinstance(c, Const):
                        break
                    head = f"}} else if ({self.condition(c)}) {{"
                except JitError:
                    raise
                except Exception as e:  # noqa: BLE001  (any error gets its place)
                    raise JitError(e, elif_.test) from None
                out += [head] + self.block(elif_.body)
                orelse = elif_.orelse
            if orelse:
                out += ["} else {"] + self.block(orelse)
            return out + ["}"]
        if isinstance(s, ast.While):
            if s.orelse:
                raise NotImplementedError("while-else is not supported.")
            cond = self.expr(s.test)
            code = "true" if isinstance(cond, Const) and cond.obj else self.condition(cond)
            return [f"while ({code}) {{"] + self.block(s.body) + ["}"]
        if isinstance(s, ast.For):
            return self.for_(s)
        if isinstance(s, ast.Return):
            return self.return_(s)
        if isinstance(s, ast.Pass):
            return []
        if isinstance(s, ast.Break):
            return ["break;"]
        if isinstance(s, ast.Continue):
            return ["continue;"]
        what = {
            ast.With: "`with` (switching contexts) is not allowed",
            ast.Try: "`try` (throw/catch) is not allowed",
            ast.Raise: "`raise` (throw/catch) is not allowed",
            ast.Import: "Cannot import modules from the target functions",
            ast.ImportFrom: "Cannot import modules from the target functions",
            ast.Global: "Cannot use global/nonlocal in the target functions",
            ast.Nonlocal: "Cannot use global/nonlocal in the target functions",
            ast.Delete: "`del` is not supported",
            ast.ClassDef: "class is not supported",
            ast.FunctionDef: "Nested functions are not supported",
            ast.Assert: "`assert` is not supported",
        }
        for cls, msg in what.items():
            if isinstance(s, cls):
                raise NotImplementedError(msg)
        raise NotImplementedError(f"Not supported: {type(s).__name__} statement")

    def condition(self, cond) -> str:
        if isinstance(cond, Const):
            return "true" if cond.obj else "false"
        if not isinstance(cond, Data) or not isinstance(cond.ctype, T.Scalar):
            raise TypeError("the condition must be a scalar")
        if cond.ctype.kind == "c":
            raise TypeError("Complex type value cannot be boolean condition.")
        code = cond.code
        while code.startswith("(") and T._closes_at_end(code):
            code = code[1:-1]
        return code

    def return_(self, s) -> list[str]:
        if s.value is None:
            value = Const(None)
        else:
            value = self.expr(s.value)
        if isinstance(value, Const) and value.obj is None:
            if self.ret_type not in (None, T.void):
                raise ValueError(f"Failed to infer the return type: {self.ret_type} or void")
            self.ret_type = T.void
            return ["return;"]
        if "__global__" in self.attrs:
            raise TypeError("a kernel (__global__ function) cannot return a value")
        if isinstance(value, TupleValue):
            raise NotImplementedError("returning a tuple is not supported")
        value = T.to_data(value)
        if not isinstance(value.ctype, T.Scalar):
            raise TypeError(f"a device function can return only scalars, not {value.ctype}")
        if self.ret_type is None:
            self.ret_type = value.ctype
        elif self.ret_type != value.ctype:
            raise ValueError(
                f"Failed to infer the return type: {self.ret_type!r} or {value.ctype!r}"
            )
        return [f"return {value.code};"]

    # ------------------------------------------------------------------ assignment

    def assign(self, target, value, top, depth=0) -> list[str]:
        if isinstance(target, ast.Name):
            name = target.id
            existing = self.vars.get(name)
            if isinstance(value, Const) and existing is None:
                obj = value.obj
                if not isinstance(obj, (bool, int, float, complex, numpy.generic)):
                    if not top:
                        raise TypeError("Cannot assign constant value not at top-level.")
                    self.consts[name] = value
                    return []
            if isinstance(value, TupleValue):
                if existing is not None:
                    raise TypeError(f"Type mismatch of variable: `{name}`")
                return self.assign_tuple(name, value, top and depth == 0)
            if existing is None:
                if (
                    name in self.consts
                    and isinstance(self.consts[name], Const)
                    and isinstance(self.consts[name].obj, TupleValue)
                ):
                    raise TypeError(f"Type mismatch of variable: `{name}`")
                value = T.to_data(value)
                if isinstance(value.ctype, T.Void):
                    raise TypeError("cannot assign a value of type void")
                cname = self.cname(name)
                var = Data(cname, value.ctype)
                self.vars[name] = var
                self.collect(name, T.range_of(value), value.ctype)
                if isinstance(value.ctype, T.Ptr) and value.code == cname:
                    return []  # shared memory declared under the variable's name
                if top and depth == 0:
                    return [f"{value.ctype.declvar(cname, value.code)};"]
                self.decl(f"{value.ctype.declvar(cname)};")
                return [f"{cname} = {value.code};"]
            self.collect(name, T.range_of(value), existing.ctype)
            return [
                f"{existing.code} = {self.cast_for_store(value, existing.ctype, existing.code)};"
            ]
        if isinstance(target, ast.Subscript):
            lhs = self.expr(target)
            if not isinstance(lhs, Data) or not isinstance(lhs.ctype, T.Scalar):
                raise TypeError("lvalue of assignment must be an array element")
            return [f"{lhs.code} = {self.cast_for_store(value, lhs.ctype, lhs.code)};"]
        if isinstance(target, ast.Tuple):
            if isinstance(value, Const) and isinstance(value.obj, tuple):
                value = TupleValue([Const(v) for v in value.obj])
            if isinstance(value, Const) and isinstance(value.obj, TupleValue):
                value = value.obj
            if not isinstance(value, TupleValue):
                raise ValueError(f"{_describe(value)} cannot be unpacked")  # noqa: TRY004  (CuPy's class)
            n = len(target.elts)
            if len(value.items) > n:
                raise ValueError(f"too many values to unpack (expected {n})")
            if len(value.items) < n:
                raise ValueError(f"not enough values to unpack (expected {n})")
            stored = {e.id for e in target.elts if isinstance(e, ast.Name)}
            items = value.items
            out = []
            if stored and any(
                isinstance(it, Data)
                and _mentions(it.code, [self.vars[s].code for s in stored if s in self.vars])
                for it in items
            ):
                tmp = []
                for it in items:
                    it = T.to_data(it)
                    t = self.fresh("_t")
                    out.append(f"{it.ctype.declvar(t, it.code)};")
                    tmp.append(Data(t, it.ctype, it.rng))
                items = tmp
                out = ["{"] + ["  " + x for x in out]
                for e, it in zip(target.elts, items):
                    out += ["  " + x for x in self.assign(e, it, False, depth + 1)]
                return out + ["}"]
            for e, it in zip(target.elts, items):
                out += self.assign(e, it, top, depth)
            return out
        raise NotImplementedError(f"assignment to {type(target).__name__} is not supported")

    def assign_tuple(self, name, value, top) -> list[str]:
        """``name = (a, b, ...)``: one C variable per item (``name_0``, ``name_1`` ...),
        declared where it is assigned at the top level, else at the top of the function (as
        a scalar assigned in a block is), so a later assignment of the same name in another
        block (same arity and item types) stores into the same variables."""
        items = [T.to_data(it) if not isinstance(it, Data) else it for it in value.items]
        prior = self.consts.get(name)
        prior = (
            prior.obj.items
            if isinstance(prior, Const) and isinstance(prior.obj, TupleValue)
            else None
        )
        names = [f"{self.cname(name)}_{k}" for k in range(len(items))]
        out = []
        if prior is not None and [p.code for p in prior] == names:
            if [p.ctype for p in prior] != [it.ctype for it in items]:
                raise TypeError(f"Type mismatch of variable: `{name}`")
            out = [f"{v} = {it.code};" for v, it in zip(names, items)]
        elif top:
            out = [f"{it.ctype.declvar(v, it.code)};" for v, it in zip(names, items)]
        else:
            for v, it in zip(names, items):
                self.decl(f"{it.ctype.declvar(v)};")
                out.append(f"{v} = {it.code};")
        self.consts[name] = Const(TupleValue([Data(v, it.ctype) for v, it in zip(names, items)]))
        return out

    def cast_for_store(self, value, t, what) -> str:
        if isinstance(value, Const):
            if not isinstance(t, T.Scalar):
                raise TypeError(f"cannot assign {value.obj!r} to {what} ({t})")
            vt = T.scalar_type(value.obj)
            if not T.can_cast(vt, t, "same_kind") and not (vt.kind in "iub" and t.kind in "iu"):
                raise TypeError(
                    f"Cannot cast from '{vt!r}' to '{t!r}' with casting rule same_kind."
                )
            return T.const_code(value.obj, t)
        if isinstance(value, TupleValue):
            raise TypeError(f"cannot assign a tuple to {what}")
        if isinstance(t, T.Scalar) and isinstance(value.ctype, T.Scalar):
            if value.ctype == t:
                return value.code
            if not T.can_cast(value.ctype, t, "same_kind"):
                raise TypeError(
                    f"Cannot cast from '{value.ctype!r}' to '{t!r}' with casting rule same_kind."
                )
            if T._implicit_ok(value.ctype, t) or (value.ctype.char, t.char) in (
                ("f", "e"),
                ("e", "f"),
            ):
                return value.code
            if value.ctype.kind in "iuf" and t.kind in "iuf" and t.char != "?":
                # narrowing same-kind stores: C converts on assignment exactly as a cast would
                return value.code
            return T.astype(value, t).code
        if value.ctype != t:
            raise TypeError(f"Data type mismatch of variable: `{what}`: {t} != {value.ctype}")
        return value.code

    def ann_assign(self, s, top) -> list[str]:
        if not isinstance(s.target, ast.Name):
            raise NotImplementedError("annotations are supported only on names")
        ann = self.expr(s.annotation)
        if not isinstance(ann, Const):
            raise TypeError("the annotation must be a dtype")
        t = T.Scalar(ann.obj)
        self.note_type(t)
        name = s.target.id
        if name in self.vars:
            if self.vars[name].ctype != t:
                raise TypeError(f"Type mismatch of variable: `{name}`")
            if s.value is None:
                return []
            return self.assign(s.target, self.expr(s.value), top)
        cname = self.cname(name)
        self.vars[name] = Data(cname, t)
        if s.value is None:
            self.decl(f"{t.declvar(cname)};")
            return []
        value = self.expr(s.value)
        self.collect(name, T.range_of(value), t)
        if isinstance(value, Const):
            code = T.const_code(T.astype(value, t).obj, t)
        else:
            code = self.cast_for_store(value, t, cname)
        if top:
            return [f"{t.declvar(cname, code)};"]
        self.decl(f"{t.declvar(cname)};")
        return [f"{cname} = {code};"]

    def aug_assign(self, s) -> list[str]:
        value = self.expr(s.value)
        target = self.expr(s.target)
        if not isinstance(target, Data) or not isinstance(target.ctype, T.Scalar):
            raise TypeError(f"Cannot augassign to {ast.unparse(s.target)}")
        op = _OPS.get(type(s.op))
        if op is None:
            raise NotImplementedError(f"operator {type(s.op).__name__} is not supported")
        t = target.ctype
        # type the operation on the target's value (to check the cast back, as CuPy does)
        result = B.call_ufunc(self, op, [Data(target.code, t, target.rng), value])
        if not T.can_cast(result.ctype, t, "same_kind"):
            raise TypeError(
                f"Cannot cast ufunc '{op}' output from '{result.ctype!r}' to '{t!r}' "
                "with casting rule 'same_kind'"
            )
        simple = _COMPOUND.get(op)
        if op == "true_divide" and t.kind == "f" and result.ctype == t:
            simple = "/"
        is_name = isinstance(s.target, ast.Name)
        if is_name:
            self.collect(s.target.id, T.range_of(result), t)
        if op in ("floor_divide", "remainder") and t.kind in "iu" and result.ctype == t:
            ins, _ = T.find_loop(op, [t, T.type_of(value)])
            rs = [T.fit(T.range_of(target), ins[0]), T.fit(T.range_of(value), ins[1])]
            if ins[0] == t and T.division_kind(*rs) == "c":
                simple = "/" if op == "floor_divide" else "%"  # C's is Python's here
        if simple and t.char not in "e?" and t.kind != "c" and t.char not in "bBhH":
            ins, _ = T.find_loop(op, [t, T.type_of(value)])
            return [f"{target.code} {simple}= {T.operand_code(value, ins[1])};"]
        if simple and t.kind == "c" and op in ("add", "subtract", "multiply") and result.ctype == t:
            return [f"{target.code} {simple}= {T.operand_code(value, t)};"]
        if is_name:
            return [f"{target.code} = {self.cast_for_store(result, t, target.code)};"]
        ref = self.fresh("_r")
        read = Data(f"(float){ref}" if t.char == "e" else ref, t)  # a float16 element as float
        result = B.call_ufunc(self, op, [read, value])
        store = self.cast_for_store(result, t, ref)
        return [f"{{ {t.element_name}& {ref} = {target.code}; {ref} = {store}; }}"]

    # ------------------------------------------------------------------ for

    def for_(self, s) -> list[str]:
        if s.orelse:
            raise NotImplementedError("for-else is not supported.")
        if not isinstance(s.target, ast.Name):
            raise NotImplementedError("the loop variable must be a single name")
        it = self.expr(s.iter)
        if not isinstance(it, B.RangeValue):
            raise NotImplementedError("for-loop is supported only for range iterator.")
        name = s.target.id
        t = it.ctype
        self.note_type(t)
        assigned = _assigned_names(s.body)
        start = T.operand_code(it.start, t)
        step_c = it.step.obj if isinstance(it.step, Const) else None
        existing = self.vars.get(name)
        if existing is not None and existing.ctype != t:
            raise TypeError(f"Data type mismatch of variable: `{name}`: {existing.ctype} != {t}")
        local = name in self.loop_local and existing is None and name not in assigned
        cname = self.cname(name) if local else None
        counter = cname if local else self.fresh("_it")
        init = [f"{t} {counter} = {start}"]
        stop = it.stop
        if isinstance(stop, Const) or isinstance(stop, Data) and _stable(stop, assigned, self):
            stop_code = T.operand_code(stop, t)
        else:
            stop_code = f"{counter}_stop"
            init.append(f"{stop_code} = {T.operand_code(stop, t)}")
        if step_c is not None:
            step_code = T.operand_code(Const(step_c), t)
        elif isinstance(it.step, Data) and _stable(it.step, assigned, self):
            step_code = T.operand_code(it.step, t)
        else:
            step_code = f"{counter}_step"
            init.append(f"{step_code} = {T.operand_code(it.step, t)}")
        if step_c is not None or t.kind == "u" or T.type_of(it.step).kind == "u":
            cmp = "<" if (step_c is None or step_c > 0) else ">"
            cond = f"{counter} {cmp} {stop_code}"
        else:
            cond = f"({step_code} >= 0 ? {counter} < {stop_code} : {counter} > {stop_code})"
        if step_c == 1:
            incr = f"++{counter}"
        elif step_c == -1:
            incr = f"--{counter}"
        elif step_c is not None and step_c < 0:
            incr = f"{counter} -= {T.operand_code(Const(-step_c), t)}"
        else:
            incr = f"{counter} += {step_code}"
        head = f"for ({', '.join(init)}; {cond}; {incr}) {{"
        pre = []
        if it.unroll is True:
            pre = ["#pragma unroll"]
        elif it.unroll is not None:
            pre = [f"#pragma unroll({int(it.unroll)})"]
        counter_range = _counter_range(it, t)
        if local:
            self.vars[name] = Data(cname, t)
            self.loop_ranges[name] = counter_range
            try:
                body = self.block(s.body)
            finally:
                del self.vars[name]
                del self.loop_ranges[name]
            return pre + [head] + body + ["}"]
        self.collect(name, counter_range, t)
        if existing is None:
            cname = self.cname(name)
            existing = Data(cname, t)
            self.vars[name] = existing
            self.decl(f"{t.declvar(cname)};")
        body = [f"  {existing.code} = {counter};"] + self.block(s.body)
        return pre + [head] + body + ["}"]

    # ------------------------------------------------------------------ expressions

    def expr(self, e):
        try:
            v = self._expr(e)
        except JitError:
            raise
        except Exception as err:  # noqa: BLE001  (any error gets the expression's place)
            raise JitError(err, e) from None
        return v

    def _expr(self, e):
        if isinstance(e, ast.Constant):
            return Const(e.value)
        if isinstance(e, ast.Name):
            if e.id in self.vars:
                return self.read(e.id, self.vars[e.id])
            if e.id in self.consts:
                c = self.consts[e.id]
                if isinstance(c, Const):
                    return c.obj if isinstance(c.obj, TupleValue) else _special(c)
                return _special(Const(c))
            if e.id in self.source.globals:
                return _special(Const(self.source.globals[e.id]))
            raise NameError(f"Unbound name: {e.id}")
        if isinstance(e, ast.BinOp):
            left, right = self.expr(e.left), self.expr(e.right)
            return self.binop(type(e.op), left, right)
        if isinstance(e, ast.UnaryOp):
            v = self.expr(e.operand)
            if isinstance(v, Const):
                return Const(_PYUNARY[type(e.op)](v.obj))
            if isinstance(e.op, ast.UAdd):
                return v
            name = {ast.USub: "negative", ast.Invert: "invert", ast.Not: "logical_not"}[type(e.op)]
            return B.call_ufunc(self, name, [v])
        if isinstance(e, ast.BoolOp):
            values = [self.expr(v) for v in e.values]
            r = values[0]
            name = "logical_and" if isinstance(e.op, ast.And) else "logical_or"
            for v in values[1:]:
                if isinstance(r, Const) and isinstance(v, Const):
                    r = Const((r.obj and v.obj) if name == "logical_and" else (r.obj or v.obj))
                else:
                    r = B.call_ufunc(self, name, [r, v])
            return r
        if isinstance(e, ast.Compare):
            if len(e.ops) != 1:
                raise NotImplementedError("Comparison of 3 or more values is not implemented.")
            left, right = self.expr(e.left), self.expr(e.comparators[0])
            op = type(e.ops[0])
            if op in (ast.Is, ast.IsNot, ast.In, ast.NotIn):
                if isinstance(left, Const) and isinstance(right, Const):
                    return Const(_PYCMP[op](left.obj, right.obj))
                raise NotImplementedError(f"`{op.__name__}` is supported only on constants")
            return self.binop(op, left, right)
        if isinstance(e, ast.IfExp):
            cond = self.expr(e.test)
            if isinstance(cond, Const):
                return self.expr(e.body if cond.obj else e.orelse)
            x, y = self.expr(e.body), self.expr(e.orelse)
            if isinstance(x, Const) and not isinstance(y, Const):
                x = T.astype(x, T.type_of(y), "same_kind")
            if isinstance(y, Const) and not isinstance(x, Const):
                y = T.astype(y, T.type_of(x), "same_kind")
            x, y = T.to_data(x), T.to_data(y)
            if x.ctype != y.ctype:
                raise TypeError(
                    f"Type mismatch in conditional expression.: {x.ctype!r} != {y.ctype!r}"
                )
            return Data(f"({self.condition(cond)} ? {x.code} : {y.code})", x.ctype)
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.Attribute):
            return self.attribute(self.expr(e.value), e.attr)
        if isinstance(e, ast.Subscript):
            value = self.expr(e.value)
            idx = self.expr(e.slice)
            return self.subscript(value, idx)
        if isinstance(e, ast.Tuple):
            items = [self.expr(x) for x in e.elts]
            if all(isinstance(x, Const) for x in items):
                return Const(tuple(x.obj for x in items))
            return TupleValue(items)
        if isinstance(e, ast.Slice):
            raise NotImplementedError("slices are not supported in JIT kernels")
        if isinstance(e, ast.Lambda):
            raise NotImplementedError("lambda is not supported")
        raise NotImplementedError(f"Not supported: {type(e).__name__} expression")

    def binop(self, op, left, right):
        if isinstance(left, Const) and isinstance(right, Const):
            return Const(_PYBIN[op](left.obj, right.obj))
        name = _OPS.get(op)
        if name is None:
            raise NotImplementedError(f"operator {op.__name__} is not supported")
        if op in (ast.Eq, ast.NotEq):
            # x % y == 0 needs no sign fix-up: y divides x (Python's 0 for y == 0 kept)
            for a, b in ((left, right), (right, left)):
                if (
                    isinstance(a, Data)
                    and a.code in self.remainders
                    and isinstance(b, Const)
                    and type(b.obj) is int
                    and b.obj == 0
                ):
                    x, y, t, nonzero = self.remainders[a.code]
                    if nonzero:
                        cmp = "==" if op is ast.Eq else "!="
                        return Data(f"{B._binary(x, '%', y)} {cmp} 0", T.bool_)
                    self.need_helper("divides")
                    code = f"_jit_divides<{t}>({x}, {y})"
                    return Data(code if op is ast.Eq else f"!{code}", T.bool_)
        for side in (left, right):
            if isinstance(getattr(side, "ctype", None), (T.Array, T.Ptr)):
                raise NotImplementedError("arithmetic on arrays is not supported (index them)")
        return B.call_ufunc(self, name, [left, right])

    def attribute(self, value, attr):
        if isinstance(value, Const):
            obj = value.obj
            if isinstance(obj, B.Dim3Var):
                return obj.attr(attr)
            return _special(Const(getattr(obj, attr)))
        if isinstance(value, TupleValue):
            raise AttributeError(f"a tuple has no attribute {attr!r}")  # noqa: TRY004
        t = value.ctype
        if isinstance(t, T.Array):
            if attr == "ndim":
                return Const(t.ndim)
            if attr == "dtype":
                return Const(t.dtype)
            if attr == "shape":
                return T.LazyTuple(t.ndim, lambda k: self.array_shape(value, k))
            if attr == "strides":
                return T.LazyTuple(t.ndim, lambda k: self.array_stride(value, k))
            if attr == "size":
                if t.ndim == 0:
                    return Const(1)
                codes = [t.extent(k) for k in range(t.ndim)]
                if t.info.idx32:
                    codes[0] = f"(long long){codes[0]}"
                return Data(" * ".join(codes), T.int64, (0, T.bounds(T.int64)[1]))
            raise AttributeError(f"Unknown attribute: {attr}")
        if isinstance(t, T.Scalar):
            if attr in ("real", "imag"):
                return B.call_ufunc(self, attr, [value])
            if attr in ("conjugate", "conj"):
                return Method(value, "conjugate")
            if attr == "dtype":
                return Const(t.dtype)
            raise AttributeError(f"Unknown attribute: {attr}")
        if isinstance(t, T.Dim3) and attr in ("x", "y", "z"):
            return Data(f"{value.code}.{attr}", T.uint32)
        if isinstance(t, T.Group):
            return Method(value, attr)
        raise AttributeError(f"Unknown attribute: {attr}")

    def array_shape(self, value, k):
        t = value.ctype
        if k < 0 or k >= t.ndim:
            raise IndexError(f"axis {k} is out of bounds for an array of {t.ndim} dimensions")
        code = t.extent(k)
        top = T.bounds(T.int32 if t.info.idx32 else T.int64)[1]
        return Data(f"(long long){code}" if t.info.idx32 else code, T.int64, (0, top))

    def array_stride(self, value, k):
        t = value.ctype
        if k < 0 or k >= t.ndim:
            raise IndexError(f"axis {k} is out of bounds for an array of {t.ndim} dimensions")
        s = t.stride(k)
        return Data(f"(long long)({s}) * {t.dtype.itemsize}", T.int64)

    def subscript(self, value, idx):
        if isinstance(value, Const):
            if isinstance(idx, Const):
                return Const(value.obj[idx.obj])
            raise TypeError(f"{type(value.obj).__name__} is not subscriptable with non-constants.")
        if isinstance(value, TupleValue):
            if not isinstance(idx, Const) or not isinstance(idx.obj, int):
                raise TypeError("Tuple is not subscriptable with non-constants.")
            return value.item(idx.obj)
        return self.index(value, idx)

    def index(self, array: Data, idx):
        """``array[idx]``: an element (a scalar lvalue) or a view."""
        t = array.ctype
        if isinstance(idx, Const) and isinstance(idx.obj, tuple):
            idx = TupleValue([Const(v) for v in idx.obj])
        items = idx.items if isinstance(idx, TupleValue) else [idx]
        for it in items:
            it_t = T.type_of(it) if not isinstance(it, TupleValue) else None
            if not isinstance(it_t, T.Scalar) or it_t.kind not in "iu":
                if isinstance(it, Const) and it.obj is None:
                    raise NotImplementedError("None (newaxis) is not supported in JIT indexing")
                raise TypeError("Array indices must be integers.")
        if isinstance(t, T.Ptr):
            if len(items) != 1:
                raise IndexError("shared memory is 1-D")
            return Data(f"{array.code}[{_index_code(items[0])}]", t.child)
        if not isinstance(t, T.Array):
            raise TypeError(f"{array.code} is not subscriptable.")
        ndim = t.ndim
        if ndim == 0:
            if isinstance(idx, TupleValue) and not items:
                return Data(f"{array.code}[0]", t.child)
            raise TypeError("Scalar indexing is not supported for 0-dim array.")
        if len(items) > ndim:
            raise IndexError(f"The number of indices is beyond array dim: {ndim}")
        terms = []
        info = t.info
        if info.contiguous:
            # Horner form over the extents: ((i * n1 + j) * n2 + k); a partial index
            # multiplies by the remaining extents.
            acc = None
            for k, it in enumerate(items):
                c = _index_code(it)
                acc = c if acc is None else f"{_mulpar(acc)} * {t.extent(k)} + {c}"
            for k in range(len(items), ndim):
                acc = f"{_mulpar(acc)} * {t.extent(k)}"
            offset = acc
        else:
            for k, it in enumerate(items):
                terms.append(B._binary(_index_code(it), "*", t.stride(k)))
            offset = " + ".join(terms)
        if len(items) == ndim:
            return Data(f"{array.code}[{offset}]", t.child)
        return Data(f"({array.code} + {offset})", T.Array(info, t.skip + len(items)))

    def call(self, e):
        func = self.expr(e.func)
        args = [self.expr(a) for a in e.args]
        if any(isinstance(a, ast.Starred) for a in e.args):
            raise NotImplementedError("*args in calls are not supported")
        kwargs = {}
        for kw in e.keywords:
            if kw.arg is None:
                raise NotImplementedError("**kwargs in calls are not supported")
            kwargs[kw.arg] = self.expr(kw.value)
        if isinstance(func, Method):
            return self.method(func, args, kwargs)
        if not isinstance(func, Const):
            raise TypeError(f"'{getattr(func, 'code', func)}' is not callable.")
        f = func.obj
        builtin = B.PYTHON_BUILTINS.get(id(f))
        if builtin is not None:
            f = builtin
        if isinstance(f, B.BuiltinFunc):
            return f.emit(self, args, kwargs)
        from cuprum.jit._kernel import _JitRawKernel

        if isinstance(f, _JitRawKernel):
            return self.device_call(f, args, kwargs)
        uname = _ufunc_name(f)
        if uname is not None:
            dtype = kwargs.pop("dtype", None)
            if kwargs:
                raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword to ufunc {uname}")
            r = B.call_ufunc(self, uname, args)
            if dtype is not None:
                r = T.astype(r, T.Scalar(dtype.obj), "unsafe")
            return r
        if all(isinstance(a, Const) for a in args) and all(
            isinstance(v, Const) for v in kwargs.values()
        ):
            return Const(f(*[a.obj for a in args], **{k: v.obj for k, v in kwargs.items()}))
        if inspect.isclass(f) and issubclass(f, (bool, int, float, complex, numpy.generic)):
            if len(args) != 1 or kwargs:
                raise TypeError(f"{f.__name__}() takes exactly one argument in JIT kernels")
            ctype = T.Scalar(f)
            self.note_type(ctype)
            return T.astype(args[0], ctype, "unsafe")
        if isinstance(f, types.ModuleType):
            raise TypeError(f"module {f.__name__} is not callable")
        raise TypeError(f"Invalid function call '{getattr(f, '__name__', f)}'.")

    def method(self, m: Method, args, kwargs):
        v = m.value
        if isinstance(v.ctype, T.Group):
            return _cg.method(self, v, m.name, args, kwargs)
        if m.name == "conjugate":
            if args or kwargs:
                raise TypeError("conjugate() takes no arguments")
            return B.call_ufunc(self, "conjugate", [v])
        raise AttributeError(f"Unknown method: {m.name}")

    def device_call(self, kernel, args, kwargs):
        if kwargs:
            raise TypeError("device functions take positional arguments only")
        if not kernel._device:
            raise TypeError(
                f"Calling __global__ function {kernel.__name__} from __global__ function is not allowed."
            )
        datas = [T.to_data(a) if not isinstance(a, Data) else a for a in args]
        types_ = []
        for d in datas:
            if isinstance(d.ctype, T.Array):
                a = d.ctype
                # the callee sees the view as an array of its own
                types_.append(("array", a))
            elif isinstance(d.ctype, (T.Scalar, T.Ptr)):
                types_.append(d.ctype)  # a Ptr (shared memory) is hashable by its element
            else:
                raise TypeError(f"cannot pass {d.ctype} to a device function")
        key_types = tuple(
            ("array", x[1].dtype.char, x[1].ndim, x[1].info.contiguous, x[1].info.idx32)
            if isinstance(x, tuple)
            else x
            for x in types_
        )
        key = (_function_identity(kernel), key_types)
        gen = self.generated
        if key in gen.device:
            entry = gen.device[key]
            if entry is None:
                raise ValueError("Recursive function is not supported.")
        else:
            gen.device[key] = None
            arg_types = []
            for x in types_:
                if isinstance(x, tuple):
                    a = x[1]
                    arg_types.append(
                        T.ArrayInfo("", a.dtype, a.ndim, a.info.contiguous, a.info.idx32)
                    )
                else:
                    arg_types.append(x)
            source = kernel._source()
            name = gen.unique_name(c_name(source.name))
            try:
                sub, code = translate_function(
                    lambda r: Translator(source, arg_types, gen, name, "__device__", r),
                    source.divides,
                )
            except JitError as err:
                reraise(source, err)
            gen.functions.append(code)
            entry = (name, sub.ret_type or T.void, sub.extras())
            gen.device[key] = entry
        name, ret, extras = entry
        codes = [d.code for d in datas]
        for i, kind, k in extras:
            a = datas[i].ctype
            if kind == "n":
                codes.append(a.extent(k))
            else:
                codes.append(a.stride(k))
        return Data(f"{name}({', '.join(codes)})", ret)


_ROUNDS = 8


def translate_function(make, divides=True):
    """``(translator, code)`` of a function whose translator ``make(ranges)`` writes it
    assuming its integer variables hold values in ``ranges`` (name -> interval); one
    translation with none known where the function has no ``//`` or ``%`` (``divides``).

    The ranges are found by translating again until they hold every value assigned (a
    fixed point, from "no value" upwards, each bound that moves widened to the next of a
    few steps so the search ends within a few rounds; a variable read but never assigned
    holds anything). Within a round a read also sees the values assigned so far (the last
    round's reads see what is assumed, which holds them all). Types do not depend on ranges, only the code chosen for ``//``/``%``
    does; a function that does not settle within ``_ROUNDS`` is written with no variable's
    range known."""
    assumed: dict = {}
    for _ in range(_ROUNDS if divides else 0):
        tr = make(assumed)
        code = tr.translate()
        new = dict(assumed)
        for name, rng in tr.collected.items():
            old = assumed.get(name, T.EMPTY)
            if T.covers(old, rng):
                continue
            # a value that grew after it was read (in a loop) is widened at once
            base = old if old is not T.EMPTY else tr.first_read.get(name, T.EMPTY)
            new[name] = rng if T.covers(base, rng) else T.widen(base, rng, tr.var_types[name])
        if new == assumed:
            # settled; a variable read that still holds no value is never assigned one
            for name, t in tr.read_empty.items():
                if new.get(name, T.EMPTY) is T.EMPTY:
                    new[name] = T.bounds(t)
            if new == assumed:
                return tr, code
        assumed = new
    tr = make(None)
    return tr, tr.translate()


def _counter_range(it, t):
    """The values a ``for`` loop over ``range`` ``it`` (of type ``t``) gives its variable."""
    start, stop, step = (T.fit(T.range_of(v), t) for v in (it.start, it.stop, it.step))
    if T.EMPTY in (start, stop, step):
        return T.EMPTY
    if start is None or stop is None or step is None:
        return None
    if step[0] > 0:
        lo, hi = start[0], stop[1] - 1
    elif step[1] < 0:
        lo, hi = stop[0] + 1, start[1]
    else:
        lo, hi = min(start[0], stop[0] + 1), max(start[1], stop[1] - 1)
    return T.EMPTY if lo > hi else T.fit((lo, hi), t)


class _Same:
    """An unhashable object in a key, compared by identity (and kept alive by the key)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return isinstance(other, _Same) and other.obj is self.obj

    def __hash__(self):
        return id(self.obj)


def _function_identity(kernel):
    """What a device function's translation depends on: its code, globals and closure
    values (read as constants while translating), mode. Two kernel objects made by one
    factory with equal closure values (``g(step)`` called again while a caller is written
    once more to find its value ranges) are translated once per program."""
    f = kernel._func
    code = getattr(f, "__code__", None)
    if code is None:
        return _Same(kernel)
    values = []
    for cell in f.__closure__ or ():
        try:
            v = cell.cell_contents
        except ValueError:  # an empty cell
            values.append(None)
            continue
        try:
            hash(v)
        except TypeError:
            v = _Same(v)
        values.append((type(v), v))
    return (code, _Same(f.__globals__), tuple(values), kernel._mode)


def _special(c: Const):
    if isinstance(c.obj, B.WarpSize):
        return Data("warpSize", T.int32)
    return c


def _describe(v):
    if isinstance(v, Const):
        return repr(v.obj)
    if isinstance(v, TupleValue):
        return "a tuple"
    return f"{v.code} ({v.ctype})"


def _mentions(code: str, names) -> bool:
    return any(re.search(rf"\b{re.escape(n)}\b", code) for n in names)


_CASTS = re.compile(r"\((?:long long|unsigned long long|int|unsigned int|double|float)\)")
_IDENT = re.compile(r"[A-Za-z_]\w*")


def _stable(d: Data, assigned, tr) -> bool:
    """Whether ``d`` reads only names the loop body does not assign (no calls, no memory),
    so the loop may re-read it instead of keeping a copy."""
    code = _CASTS.sub("", d.code)
    if "(" in code or "[" in code:
        return False
    changing = {tr.vars[n].code for n in assigned if n in tr.vars} | set(assigned)
    return not any(w in changing for w in _IDENT.findall(code))


def _index_code(it) -> str:
    if isinstance(it, Const):
        return str(int(it.obj))
    return it.code


def _mulpar(code: str) -> str:
    return T.paren(code, 13)


def _ufunc_name(f):
    if isinstance(f, numpy.ufunc):
        return f.__name__
    mod = getattr(f, "__module__", None)
    name = getattr(f, "__name__", None)
    if name is None:
        return None
    if mod == "math" and name not in ("isqrt", "factorial", "comb", "perm", "gcd", "lcm"):
        mapped = {"fabs": "fabs", "pow": "power", "atan2": "arctan2"}.get(name, name)
        mapped = T.ALIASES.get(mapped, mapped)
        return mapped if mapped in T.LOOPS else None
    if name in T.LOOPS or name in T.ALIASES:
        import cuprum

        if mod == "cuprum" or getattr(cuprum, name, None) is f:
            return name
    return None


_OPS = {
    ast.Add: "add",
    ast.Sub: "subtract",
    ast.Mult: "multiply",
    ast.Div: "true_divide",
    ast.FloorDiv: "floor_divide",
    ast.Mod: "remainder",
    ast.Pow: "power",
    ast.LShift: "left_shift",
    ast.RShift: "right_shift",
    ast.BitAnd: "bitwise_and",
    ast.BitOr: "bitwise_or",
    ast.BitXor: "bitwise_xor",
    ast.Eq: "equal",
    ast.NotEq: "not_equal",
    ast.Lt: "less",
    ast.LtE: "less_equal",
    ast.Gt: "greater",
    ast.GtE: "greater_equal",
}
_COMPOUND = {
    "add": "+",
    "subtract": "-",
    "multiply": "*",
    "bitwise_and": "&",
    "bitwise_or": "|",
    "bitwise_xor": "^",
    "left_shift": "<<",
    "right_shift": ">>",
}

import operator as _op

_PYBIN = {
    ast.Add: _op.add,
    ast.Sub: _op.sub,
    ast.Mult: _op.mul,
    ast.Div: _op.truediv,
    ast.FloorDiv: _op.floordiv,
    ast.Mod: _op.mod,
    ast.Pow: _op.pow,
    ast.LShift: _op.lshift,
    ast.RShift: _op.rshift,
    ast.BitAnd: _op.and_,
    ast.BitOr: _op.or_,
    ast.BitXor: _op.xor,
    ast.Eq: _op.eq,
    ast.NotEq: _op.ne,
    ast.Lt: _op.lt,
    ast.LtE: _op.le,
    ast.Gt: _op.gt,
    ast.GtE: _op.ge,
}
_PYUNARY = {ast.USub: _op.neg, ast.UAdd: _op.pos, ast.Invert: _op.invert, ast.Not: _op.not_}
_PYCMP = {
    ast.Is: _op.is_,
    ast.IsNot: _op.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


def transpile(source: Source, arg_types, name: str, mode: str = "cuda"):
    """The program for a kernel of ``arg_types`` (scalars as ``Scalar``, arrays as
    ``ArrayInfo``) in typing ``mode``: ``(code, kernel name, extras, cooperative)``."""
    token = T.MODE.set(mode)
    try:
        return _transpile(source, arg_types, name)
    finally:
        T.MODE.reset(token)


def _transpile(source: Source, arg_types, name: str):
    gen = Generated()
    gen.names.add(name)
    try:
        tr, code = translate_function(
            lambda r: Translator(source, arg_types, gen, name, 'extern "C" __global__', r),
            source.divides,
        )
    except JitError as e:
        reraise(source, e)
    gen.functions.append(code)
    return gen.code(), tr.extras(), gen.cooperative
