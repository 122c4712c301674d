#!/usr/bin/env python3
# Compares the constants the bindings copy from include/tessera/tessera.h (enum values) with the
# header itself, and checks that the version is stated once, in project() of the top-level
# CMakeLists.txt; CTest runs it as `binding_constants` (label unit).
"""Checks every binding's copy of the constants of tessera.h against the header.

usage: check_binding_constants.py [--root DIR] [--verbose]

The header's constants are its integer `#define TSR_*` macros and the enumerators of its enums
(tsr_status, tsr_backend, tsr_layout, tsr_op, tsr_dtype, tsr_index_type, tsr_format), each enum
one group. The bindings carry them under the header's names, each in one place:

- the Fortran module: `integer(c_int), parameter, public :: TSR_... = ...` in
  bindings/fortran/tessera.f90;
- the Rust crate: `pub const TSR_...: c_int = ...;` in bindings/rust/src/ffi.rs;
- the Python package: `TSR_... = ...` in bindings/python/src/tessera/_constants.py.

Every binding must carry every enum group whole. Any integer #define forms a group checked the
same way: whole where a binding carries it. A macro that is arithmetic (`(1 << 3)`) is refused,
not skipped.

It fails, listing each problem, when a binding's value differs from the header's, when a
binding lacks a constant it must carry, when it has a TSR_ constant the header does not
define, when it defines one twice or outside its one place, and when it keeps a literal copy
under another spelling (`_OP_N = 111`, `const ROW_MAJOR: c_int = 101`) instead of the TSR_
name.

The version is stated once, in project(tessera VERSION X.Y.Z) of the top-level CMakeLists.txt,
and fails wherever it is written again: tessera.h must include tessera_version.h, which CMake
generates from include/tessera/tessera_version.h.in, whose TSR_VERSION_MAJOR, _MINOR and _PATCH
must be @PROJECT_VERSION_MAJOR@, @PROJECT_VERSION_MINOR@ and @PROJECT_VERSION_PATCH@ (no number,
and no TSR_VERSION_* in tessera.h); TESSERA_ABI_VERSION (the SONAME) is ${PROJECT_VERSION_MAJOR}
(or a number equal to it). The Python package must define TSR_VERSION_* derived, not as
numbers (it reads project() through the wheel's tessera/_version.py or the checkout), and
neither a literal __version__ nor a literal libtessera.so.N in the package or its CMakeLists.txt
is allowed; the Fortran module and the Rust crate ask the library at run time, so a version
number there is a copy too. Cargo needs a literal: the version of bindings/rust/Cargo.toml
must equal project()'s.
"""
import argparse
import ast
import pathlib
import re
import sys

VERSION_GROUP = "version"
INT_LITERAL = r"[-+]?\s*(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*"


class Constant:
    """One definition of a constant: its value (None where it is not a plain integer) and place."""

    def __init__(self, name, value, path, line):
        self.name, self.value, self.path, self.line = name, value, path, line

    def where(self, root):
        try:
            shown = self.path.relative_to(root)
        except ValueError:
            shown = self.path
        return f"{shown}:{self.line}"


def int_value(text):
    """The value of a C, Fortran or Rust integer literal ("0x10", "102", "5_c_int", "-1"), or None."""
    text = re.sub(r"\s+", "", text)
    text = re.sub(r"_(?:[A-Za-z]\w*)$", "", text)  # a Fortran kind: 5_c_int
    text = re.sub(r"(?i)(?:[ul]+|_?[iu](?:8|16|32|64|size))$", "", text)  # C and Rust suffixes
    text = text.replace("_", "") if re.fullmatch(r"[-+]?[0-9_]+", text) else text
    try:
        return int(text, 0)
    except ValueError:
        return None


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def strip_c_comments(text):
    """The text with /* */ and // comments blanked out, newlines kept (so line numbers hold)."""
    def blank(match):
        return re.sub(r"[^\n]", " ", match.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*", blank, text, flags=re.S)


# ---- The header ---------------------------------------------------------------------------------

def read_header(path):
    """{group: [Constant, ...]} in the header's order; raises ValueError on what it cannot read."""
    raw = path.read_text()
    text = strip_c_comments(raw)
    groups, macros = {}, set()
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(TSR_\w+)(\(?)([^\n]*)$", text, flags=re.M):
        name, body = m.group(1), m.group(3).strip()
        macros.add(name)
        literal = re.fullmatch(rf"\(?\s*({INT_LITERAL})\s*\)?", body)
        if m.group(2) or not literal:
            # Not a number (TSR_API, TSR_ENUM_BASE, a function-like macro) unless it is arithmetic,
            # which this script does not evaluate: that must fail, not pass unchecked.
            if not m.group(2) and re.search(r"\d", body) \
                    and re.fullmatch(r"[\s\dxXa-fA-FuUlL()+\-*/<>|&~^]+", body):
                raise ValueError(f"{path}:{line_of(text, m.start(1))}: cannot evaluate {name} {body}")
            continue
        group = VERSION_GROUP if name.startswith("TSR_VERSION_") else "defines"
        groups.setdefault(group, []).append(
            Constant(name, int_value(literal.group(1)), path, line_of(text, m.start(1))))
    for m in re.finditer(r"\benum\b\s*(\w+)?\s*(?:TSR_ENUM_BASE\s*)?\{([^}]*)\}\s*(\w+)?\s*;", text):
        group = m.group(3) or m.group(1)
        if not group:
            raise ValueError(f"{path}:{line_of(text, m.start())}: an enum without a name")
        body_start = m.start(2)
        members, following = [], 0
        known = {c.name: c.value for g in groups.values() for c in g}
        for item in m.group(2).split(","):
            offset = body_start + len(item) - len(item.lstrip())
            body_start += len(item) + 1
            item = item.strip()
            if not item:
                continue
            name, _, expr = (part.strip() for part in item.partition("="))
            if not re.fullmatch(r"TSR_\w+", name):
                raise ValueError(f"{path}:{line_of(text, offset)}: enumerator {name!r} is not TSR_*")
            if expr:
                value = known.get(expr, int_value(expr))
                if value is None:
                    raise ValueError(f"{path}:{line_of(text, offset)}: cannot evaluate {name} = {expr}")
            else:
                value = following
            members.append(Constant(name, value, path, line_of(text, offset)))
            known[name] = value
            following = value + 1
        if group in groups:
            raise ValueError(f"{path}: two groups named {group}")
        groups[group] = members
    if not any(g != VERSION_GROUP for g in groups):
        raise ValueError(f"{path}: no enum found; has the header's form changed?")
    # Every TSR_ name that looks like a constant must have been read: a form this parser does not
    # know (a #define of an expression, say) fails here instead of going unchecked.
    read = {c.name for g in groups.values() for c in g}
    for m in re.finditer(r"\b(TSR_[A-Z0-9_]+)\b", text):
        name = m.group(1)
        if name not in read and name not in macros:
            raise ValueError(f"{path}:{line_of(text, m.start())}: {name} is not a constant this "
                             "script can read (an integer #define or an enumerator)")
    return groups


# ---- The bindings -------------------------------------------------------------------------------

def read_fortran(paths):
    """Named constants (parameter) with integer literal values, from free-form Fortran."""
    found = []
    for path in paths:
        lines = path.read_text().split("\n")
        statement, first = "", 0
        for number, line in enumerate(lines, 1):
            code = line.split("!", 1)[0].rstrip()  # the constant lines hold no strings
            if not statement:
                first = number
            part = code.strip()
            if statement and part.startswith("&"):
                part = part[1:]
            if part.endswith("&"):
                statement += part[:-1] + " "
                continue
            statement += part
            decl = re.match(r"(?i)\s*(?:integer|real)\b[^:]*\bparameter\b[^:]*::(.*)$", statement)
            if decl:
                for item in split_top_level(decl.group(1)):
                    name, _, expr = (p.strip() for p in item.partition("="))
                    if re.fullmatch(r"\w+", name) and expr:
                        found.append(Constant(name.upper(), int_value(expr), path, first))
            statement = ""
    return found


def split_top_level(text):
    """text split on the commas outside parentheses and brackets."""
    items, depth, current = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += ch
    items.append(current)
    return [i for i in items if i.strip()]


def read_rust(paths):
    """`const NAME: type = value;` items (pub or not); value None where it is not a literal."""
    found = []
    for path in paths:
        text = strip_c_comments(path.read_text())
        for m in re.finditer(r"\bconst\s+([A-Z][A-Z0-9_]*)\s*:\s*[^=;]+=\s*([^;]+);", text):
            found.append(Constant(m.group(1), int_value(m.group(2)), path, line_of(text, m.start(1))))
    return found


def read_python(paths):
    """Module-level `NAME = value` (and `A, B = 1, 2`) bindings with int literal values, every TSR_
    name (value None unless an int literal), and a string literal bound to __version__."""
    found = []
    for path in paths:
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in tree.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                pairs = [(node.target, node.value)]
            elif isinstance(node, ast.Assign):
                pairs = []
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        pairs.append((target, node.value))
                    elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                            and len(target.elts) == len(node.value.elts):
                        pairs.extend(zip(target.elts, node.value.elts))
                    elif isinstance(target, ast.Tuple):  # A, B = f(): bound, but not to literals
                        pairs.extend((elt, None) for elt in target.elts)
            else:
                continue
            for target, value in pairs:
                if not isinstance(target, ast.Name):
                    continue
                literal = python_int(value) if value is not None else None
                if target.id == "__version__" and isinstance(value, ast.Constant) \
                        and isinstance(value.value, str):
                    found.append(Constant("__version__", value.value, path, node.lineno))
                if literal is not None or target.id.startswith("TSR_"):
                    found.append(Constant(target.id, literal, path, node.lineno))
    return found


def python_int(node):
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = python_int(node.operand)
        if inner is not None:
            return -inner if isinstance(node.op, ast.USub) else inner
    return None


class Binding:
    def __init__(self, name, home, files, reader, groups):
        self.name, self.home, self.files, self.reader, self.groups = name, home, files, reader, groups


def check_binding(binding, header, root, problems):
    """Appends the binding's problems; returns how many of its constants match the header and
    the groups it was held to."""
    by_name = {c.name: (group, c) for group, members in header.items() for c in members}
    suffixes = {name[len("TSR_"):]: name for name in by_name}
    if not binding.home.exists():
        problems.append(f"{binding.name}: {binding.home.relative_to(root)}, the binding's one "
                        "copy of the constants, does not exist")
    definitions = binding.reader(sorted(p for p in set([binding.home] + binding.files) if p.exists()))
    carried, matched = {}, 0
    for c in definitions:
        if c.name == "__version__":
            problems.append(f"{binding.name}: {c.where(root)}: __version__ = {c.value!r} states "
                            f"the version again; derive it from project() ({version_string(header)})")
            continue
        if c.name.startswith("TSR_"):
            carried.setdefault(c.name, []).append(c)
            continue
        # A literal copy under another spelling: _OP_N = 111, ROW_MAJOR = 101.
        twin = suffixes.get(c.name.lstrip("_").upper())
        if twin and c.value is not None:
            problems.append(f"{binding.name}: {c.where(root)}: {c.name} = {c.value} copies {twin}; "
                            f"use {twin} from {binding.home.relative_to(root)}")
    for name, copies in sorted(carried.items()):
        if name not in by_name:
            problems.append(f"{binding.name}: {copies[0].where(root)}: {name} is not in tessera.h")
            continue
        group, want = by_name[name][0], by_name[name][1].value
        if len(copies) > 1:
            places = ", ".join(c.where(root) for c in copies)
            problems.append(f"{binding.name}: {name} is defined {len(copies)} times ({places}); "
                            "keep the one in " + str(binding.home.relative_to(root)))
        for c in copies:
            if c.path != binding.home:
                problems.append(f"{binding.name}: {c.where(root)}: {name} belongs in "
                                f"{binding.home.relative_to(root)}, the binding's one copy")
            if group == VERSION_GROUP:
                # The version is project()'s alone: a binding derives it, never writes it.
                if c.value is not None:
                    problems.append(f"{binding.name}: {c.where(root)}: {name} = {c.value} states the "
                                    "version again; derive it from project(tessera VERSION "
                                    f"{version_string(header)}) in CMakeLists.txt")
                else:
                    matched += 1
            elif c.value is None:
                problems.append(f"{binding.name}: {c.where(root)}: {name} is not an integer literal; "
                                f"tessera.h has {want}")
            elif c.value != want:
                problems.append(f"{binding.name}: {c.where(root)}: {name} = {c.value}, "
                                f"but tessera.h has {want}")
            else:
                matched += 1
    # Required: the groups the binding must carry, and every group it carries any of.
    # The version is never required because a binding carries part of it: no binding may copy it.
    required = set(binding.groups) | {by_name[n][0] for n in carried
                                      if n in by_name and by_name[n][0] != VERSION_GROUP}
    for group in sorted(required):
        for c in header.get(group, []):
            if c.name not in carried and group == VERSION_GROUP:
                problems.append(f"{binding.name}: lacks {c.name}; define it in "
                                f"{binding.home.relative_to(root)}, derived from project() "
                                "(not a number)")
            elif c.name not in carried:
                problems.append(f"{binding.name}: lacks {c.name} = {c.value} ({group}, "
                                f"{c.where(root)}); add it to {binding.home.relative_to(root)}")
    return matched, sorted(required)


def version_string(header):
    version = {c.name: c.value for c in header.get(VERSION_GROUP, [])}
    return ".".join(str(version.get(f"TSR_VERSION_{p}")) for p in ("MAJOR", "MINOR", "PATCH"))


VERSION_PARTS = ("MAJOR", "MINOR", "PATCH")


def project_version(root):
    """(text, line) of project(tessera VERSION X.Y.Z) in the top-level CMakeLists.txt, the one
    statement of the version; raises ValueError when there is none or it is not X.Y.Z."""
    text = (root / "CMakeLists.txt").read_text()
    m = re.search(r"^[ \t]*project\(\s*tessera\s+VERSION\s+([^\s)]+)", text, flags=re.M)
    if not m:
        raise ValueError("CMakeLists.txt: no project(tessera VERSION ...)")
    if not re.fullmatch(r"\d+\.\d+\.\d+", m.group(1)):
        raise ValueError(f"CMakeLists.txt:{line_of(text, m.start())}: project VERSION {m.group(1)} "
                         "is not MAJOR.MINOR.PATCH (tessera_version.h needs all three)")
    return m.group(1), line_of(text, m.start())


def read_version_template(root, version, problems):
    """The version group: TSR_VERSION_* of tessera_version.h.in, each of which must be its
    @PROJECT_VERSION_*@ (not a number), with project()'s values."""
    path = root / "include" / "tessera" / "tessera_version.h.in"
    shown = path.relative_to(root)
    if not path.exists():
        problems.append(f"{shown} does not exist: the version macros are generated from it")
        return []
    text = strip_c_comments(path.read_text())
    values = dict(zip(VERSION_PARTS, (int(v) for v in version.split("."))))
    found = {}
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(TSR_\w+)[ \t]*([^\n]*)$", text, flags=re.M):
        name, body, line = m.group(1), m.group(2).strip(), line_of(text, m.start(1))
        part = name[len("TSR_VERSION_"):] if name.startswith("TSR_VERSION_") else None
        if part not in VERSION_PARTS:
            problems.append(f"{shown}:{line}: {name} does not belong here (only TSR_VERSION_*); "
                            "put it in tessera.h")
        else:
            if body != f"@PROJECT_VERSION_{part}@":
                problems.append(f"{shown}:{line}: {name} is {body!r}; it must be "
                                f"@PROJECT_VERSION_{part}@, from project()")
            found[name] = Constant(name, values[part], path, line)
    for part in VERSION_PARTS:
        if f"TSR_VERSION_{part}" not in found:
            problems.append(f"{shown}: lacks #define TSR_VERSION_{part} @PROJECT_VERSION_{part}@")
    return [found[f"TSR_VERSION_{p}"] for p in VERSION_PARTS if f"TSR_VERSION_{p}" in found]


def check_build(root, version, problems):
    """The statements of the version outside the bindings' constants: the SONAME, tessera.h's
    include of the generated header, the crate's version, the Python package's library name."""
    path = root / "CMakeLists.txt"
    text = path.read_text()
    major = version.split(".")[0]
    m = re.search(r"set\(\s*TESSERA_ABI_VERSION\s+([^\s)]+)\s*\)", text)
    if not m:
        problems.append("CMakeLists.txt: no set(TESSERA_ABI_VERSION ...)")
    elif m.group(1) not in ("${PROJECT_VERSION_MAJOR}", "${tessera_VERSION_MAJOR}", major):
        problems.append(f"CMakeLists.txt:{line_of(text, m.start())}: TESSERA_ABI_VERSION is "
                        f"{m.group(1)}, but project()'s major is {major}: "
                        "set(TESSERA_ABI_VERSION ${PROJECT_VERSION_MAJOR})")
    header = root / "include" / "tessera" / "tessera.h"
    include = r'^[ \t]*#[ \t]*include[ \t]*["<](?:tessera/)?tessera_version\.h[">]'
    if header.exists() and not re.search(include, strip_c_comments(header.read_text()), flags=re.M):
        problems.append("include/tessera/tessera.h does not #include \"tessera_version.h\" "
                        "(the version macros generated from project())")
    cargo = root / "bindings" / "rust" / "Cargo.toml"
    if cargo.exists():
        ctext = cargo.read_text()
        package = re.search(r"^\[package\][ \t]*\n(.*?)(?=^\[|\Z)", ctext, flags=re.M | re.S)
        m = package and re.search(r'^version\s*=\s*"([^"]*)"', package.group(1), flags=re.M)
        if not m:
            problems.append("bindings/rust/Cargo.toml: no version = \"...\" in [package]")
        elif m.group(1) != version:
            line = line_of(ctext, package.start(1) + m.start())
            problems.append(f"bindings/rust/Cargo.toml:{line}: version = \"{m.group(1)}\", but "
                            f"project() in CMakeLists.txt says {version}")
    python = root / "bindings" / "python"
    for source in sorted(python.glob("src/tessera/*.py")) + [python / "CMakeLists.txt"]:
        if not source.exists():
            continue
        stext = source.read_text()
        for m in re.finditer(r"libtessera\.so\.\d+", stext):
            problems.append(f"{source.relative_to(root)}:{line_of(stext, m.start())}: {m.group(0)} "
                            "states the ABI again; derive it from project()'s major")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent.parent,
                        help="the repository (default: this script's parent folder's parent)")
    parser.add_argument("--verbose", "-v", action="store_true", help="say what was compared")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    header_path = root / "include" / "tessera" / "tessera.h"
    try:
        header = read_header(header_path)
    except (OSError, ValueError) as e:
        print(f"FAIL: cannot read the constants of tessera.h: {e}")
        return 1
    problems = []
    # The version: project()'s, through the template; never written in tessera.h itself.
    for c in header.pop(VERSION_GROUP, []):
        problems.append(f"{c.where(root)}: {c.name} = {c.value} is written by hand; the version "
                        "comes from project() through include/tessera/tessera_version.h.in")
    try:
        version, version_line = project_version(root)
    except (OSError, ValueError) as e:
        print(f"FAIL: {e}")
        return 1
    header[VERSION_GROUP] = read_version_template(root, version, problems)
    enum_groups = [g for g in header if g not in (VERSION_GROUP, "defines")]
    count = sum(len(m) for g, m in header.items() if g != VERSION_GROUP)
    print(f"tessera.h: {count} constants in {len(header) - 1} groups "
          f"({', '.join(g for g in header if g != VERSION_GROUP)})")
    print(f"CMakeLists.txt:{version_line}: project(tessera VERSION {version}), the one statement "
          "of the version")

    fortran = root / "bindings" / "fortran"
    rust = root / "bindings" / "rust" / "src"
    python = root / "bindings" / "python" / "src" / "tessera"
    bindings = [
        Binding("Fortran module", fortran / "tessera.f90",
                sorted(fortran.glob("*.f90")) + sorted(fortran.glob("*.F90"))
                + sorted(fortran.glob("*.inc")), read_fortran, enum_groups),
        Binding("Rust crate", rust / "ffi.rs", sorted(rust.rglob("*.rs")), read_rust, enum_groups),
        Binding("Python package", python / "_constants.py", sorted(python.glob("*.py")),
                read_python, enum_groups + [VERSION_GROUP]),
    ]
    for binding in bindings:
        before = len(problems)
        matched, groups = check_binding(binding, header, root, problems)
        status = "ok" if len(problems) == before else f"{len(problems) - before} problem(s)"
        print(f"{binding.name} ({binding.home.relative_to(root)}): {matched} constants match "
              f"the header; {status}")
        if args.verbose:
            print(f"  held to the groups: {', '.join(groups)}")
    before = len(problems)
    check_build(root, version, problems)
    print(f"SONAME, tessera.h's include, Cargo.toml, the Python library name: "
          f"{'ok' if len(problems) == before else 'mismatch'}")
    if problems:
        print(f"FAIL: {len(problems)} problem(s) with the constants copied from tessera.h "
              "or the version:")
        for p in problems:
            print(f"  {p}")
        return 1
    print(f"every binding's constants match tessera.h; the version {version} is stated once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
