# How the package finds libtessera ($TESSERA_LIBRARY, the bundled copy, the system) and what
# it says when it cannot; the versions of the package and the library agree.
import os
import pathlib
import re
import subprocess
import sys

import pytest

import tessera


def run_import(env_changes):
    env = dict(os.environ)
    env.update(env_changes)
    return subprocess.run([sys.executable, "-c", "import tessera; print(tessera.library_path)"],
                          env=env, capture_output=True, text=True, timeout=60)


def test_a_library_is_loaded():
    assert os.path.isfile(tessera.library_path)
    assert re.fullmatch(r"\d+\.\d+\.\d+", tessera.version())
    assert tessera.library_version == tessera.version()


def test_package_and_library_versions_agree():
    assert tessera.__version__ == tessera.version()
    cmake = pathlib.Path(__file__).resolve().parents[3] / "CMakeLists.txt"
    if cmake.exists():  # in a source checkout: project()'s version, the one statement of it, too
        found = re.search(r"project\(\s*tessera\s+VERSION\s+([0-9.]+)", cmake.read_text())
        assert found, f"no project(tessera VERSION ...) in {cmake}"
        assert found.group(1) == tessera.__version__


@pytest.mark.skipif(os.environ.get("TESSERA_EXPECT_BUNDLED") != "1",
                    reason="set TESSERA_EXPECT_BUNDLED=1 to check an installed wheel")
def test_the_bundled_library_is_used():
    package = pathlib.Path(tessera.__file__).resolve().parent
    assert "TESSERA_LIBRARY" not in os.environ
    assert pathlib.Path(tessera.library_path).parent == package / "_lib"


def test_tessera_library_names_the_file():
    done = run_import({"TESSERA_LIBRARY": tessera.library_path})
    assert done.returncode == 0, done.stderr
    assert os.path.realpath(done.stdout.strip()) == os.path.realpath(tessera.library_path)


def test_a_missing_library_is_reported():
    done = run_import({"TESSERA_LIBRARY": "/nonexistent/libtessera.so.0"})
    assert done.returncode != 0
    assert "ImportError" in done.stderr and "TESSERA_LIBRARY" in done.stderr
    assert "/nonexistent/libtessera.so.0" in done.stderr


def test_a_library_that_is_not_tessera_is_refused():
    done = run_import({"TESSERA_LIBRARY": "libm.so.6"})
    assert done.returncode != 0
    assert "does not export tsr_version" in done.stderr
