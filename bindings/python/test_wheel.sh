#!/usr/bin/env bash
# The Python package as a user gets it: the manylinux wheel (build_wheel.sh: pip builds
# libtessera and bundles it, auditwheel makes it a manylinux wheel) installed in a fresh virtual
# environment, then the pytest suite and the examples against it.
# usage: bash bindings/python/test_wheel.sh      (PYTHON=python3.12 to choose the interpreter)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python="${PYTHON:-python3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/tessera-wheel.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "== fresh virtual environment ($("$python" --version 2>&1)) in $work/venv"
"$python" -m venv "$work/venv"
venv_python="$work/venv/bin/python"
"$venv_python" -m pip install --quiet --upgrade pip

echo "== the manylinux wheel (bindings/python/build_wheel.sh)"
PYTHON="$python" bash "$root/bindings/python/build_wheel.sh" "$work/dist"
echo "== pip install the wheel, pytest, scipy"
"$venv_python" -m pip install --quiet "$work"/dist/tessera-*manylinux*.whl pytest scipy

# From a folder outside the checkout, so that the installed package is the one imported, with
# the library bundled in its wheel (not one named by TESSERA_LIBRARY).
cd "$work"
unset TESSERA_LIBRARY PYTHONPATH
"$venv_python" - <<'PY'
import pathlib, tessera
package = pathlib.Path(tessera.__file__).resolve().parent
print(f"tessera {tessera.__version__} imported from {package}")
print(f"library: {tessera.library_path}")
assert "site-packages" in str(package), "the installed package was not the one imported"
assert pathlib.Path(tessera.library_path).parent == package / "_lib", "not the bundled library"
PY

echo "== pytest"
status=0
TESSERA_EXPECT_BUNDLED=1 "$venv_python" -m pytest -q -rs -p no:cacheprovider \
    "$root/bindings/python/tests" || status=$?
if [ "$status" -eq 5 ]; then
    echo "FAIL: pytest collected no tests"
    exit 1
fi
[ "$status" -eq 0 ] || { echo "FAIL: pytest exited with status $status"; exit 1; }

echo "== examples"
for example in "$root"/examples/python/*.py; do
    echo "-- $(basename "$example")"
    "$venv_python" "$example"
done
echo "wheel test passed"
