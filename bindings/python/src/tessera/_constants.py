# The constants of tessera.h under the header's own names: the package's one copy of them.
# scripts/check_binding_constants.py (CTest binding_constants) compares every value with the
# header, as it does those of the Fortran module and the Rust crate.
import pathlib
import re


def _project_version():
    """(major, minor, patch) of project(tessera VERSION ...) in the top-level CMakeLists.txt, the
    one statement of the version: from tessera/_version.py, which the wheel's build writes
    (pyproject.toml), or, in a source checkout, from the CMakeLists.txt itself."""
    try:
        from ._version import version
    except ImportError:
        here = pathlib.Path(__file__).resolve()  # <root>/bindings/python/src/tessera/
        root = here.parents[4] if len(here.parents) > 4 else here.parent
        cmake = root / "CMakeLists.txt"
        found = None
        if (root / "include" / "tessera" / "tessera.h").is_file() and cmake.is_file():
            found = re.search(r"project\(\s*tessera\s+VERSION\s+(\d+\.\d+\.\d+)",
                              cmake.read_text())
        if not found:
            raise ImportError(
                "tessera: no tessera/_version.py (written when the wheel is built) and no "
                f"project(tessera VERSION ...) in {cmake}: install the package with "
                "`pip install ./bindings/python`, or use it from a source checkout") from None
        version = found.group(1)
    return tuple(int(part) for part in version.split(".")[:3])


# The version this package was built for (TSR_VERSION_* of tessera_version.h, generated from the
# same project()); the major is the ABI (the SONAME's number).
TSR_VERSION_MAJOR, TSR_VERSION_MINOR, TSR_VERSION_PATCH = _project_version()

# tsr_status
TSR_SUCCESS = 0
TSR_ERR_INVALID_ARGUMENT = 1
TSR_ERR_BACKEND_UNAVAILABLE = 2
TSR_ERR_OUT_OF_MEMORY = 3
TSR_ERR_DEVICE = 4
TSR_ERR_NOT_SUPPORTED = 5
TSR_ERR_INTERNAL = 6

# tsr_backend
TSR_BACKEND_AUTO = 0
TSR_BACKEND_CPU = 1
TSR_BACKEND_CUDA = 2
TSR_BACKEND_REFERENCE = 3

# tsr_layout and tsr_op (the CBLAS values)
TSR_ROW_MAJOR = 101
TSR_COL_MAJOR = 102
TSR_OP_N = 111
TSR_OP_T = 112
TSR_OP_C = 113

# tsr_dtype and tsr_index_type
TSR_F32 = 0
TSR_F64 = 1
TSR_INDEX_I32 = 0
TSR_INDEX_I64 = 1

# tsr_format
TSR_FORMAT_AUTO = 0
TSR_FORMAT_CSR = 1
TSR_FORMAT_COO = 2
TSR_FORMAT_ELL = 3
TSR_FORMAT_DIA = 4
TSR_FORMAT_HYB = 5
