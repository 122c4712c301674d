# Tests of the bindings and of the examples that use them: the Fortran module (label fortran),
# the Python package run from the source tree against this build (label python), walk counting.

# C: counting walks in a graph with dgemm and with repeated spmv.
add_executable(abi_walk_count ${PROJECT_SOURCE_DIR}/examples/c/walk_count.c)
target_link_libraries(abi_walk_count PRIVATE tessera)
add_test(NAME abi_example_walk_count COMMAND abi_walk_count)
set_tests_properties(abi_example_walk_count PROPERTIES LABELS abi)

# ---- Fortran: module `tessera` (bindings/fortran), its test and its example -----------------
if(CMAKE_Fortran_COMPILER)
  set(TSR_FORTRAN_DIR ${PROJECT_SOURCE_DIR}/bindings/fortran)
  add_library(abi_tessera_fortran STATIC ${TSR_FORTRAN_DIR}/tessera.f90)
  set_target_properties(abi_tessera_fortran PROPERTIES
    Fortran_MODULE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/tessera_module)
  target_include_directories(abi_tessera_fortran PUBLIC ${CMAKE_CURRENT_BINARY_DIR}/tessera_module)
  # The folder of the template files tessera.f90 includes: named, so that the dependency scan
  # finds them and editing one rebuilds the module.
  target_include_directories(abi_tessera_fortran PRIVATE ${TSR_FORTRAN_DIR})
  target_link_libraries(abi_tessera_fortran PUBLIC tessera)
  if(CMAKE_Fortran_COMPILER_ID STREQUAL "GNU")
    # The module is standard Fortran 2018: no compiler extension may creep in.
    target_compile_options(abi_tessera_fortran PRIVATE -std=f2018 -Wall)
  endif()

  add_executable(abi_fortran_module_test ${TSR_FORTRAN_DIR}/tests/test_tessera_module.f90)
  target_link_libraries(abi_fortran_module_test PRIVATE abi_tessera_fortran)
  add_test(NAME fortran_module COMMAND abi_fortran_module_test)

  # Without stat=, a failure stops the program with the library's message.
  add_executable(abi_fortran_error_stop ${TSR_FORTRAN_DIR}/tests/test_error_stop.f90)
  target_link_libraries(abi_fortran_error_stop PRIVATE abi_tessera_fortran)
  add_test(NAME fortran_module_error_stop COMMAND abi_fortran_error_stop)
  set_tests_properties(fortran_module_error_stop PROPERTIES
    PASS_REGULAR_EXPRESSION "tessera: tessera_gemm: invalid argument: shapes do not match"
    FAIL_REGULAR_EXPRESSION "not reached")

  add_executable(abi_fortran_module_example ${PROJECT_SOURCE_DIR}/examples/fortran/module_example.f90)
  target_link_libraries(abi_fortran_module_example PRIVATE abi_tessera_fortran)
  add_test(NAME abi_example_fortran_module COMMAND abi_fortran_module_example)

  # The standalone CMake project of bindings/fortran, built against an installed Tessera.
  add_test(NAME fortran_module_standalone
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/fortran_standalone_test.sh ${PROJECT_BINARY_DIR}
            ${PROJECT_SOURCE_DIR} ${CMAKE_Fortran_COMPILER})
  set_tests_properties(fortran_module_standalone PROPERTIES
    ENVIRONMENT "CMAKE_COMMAND=${CMAKE_COMMAND}" TIMEOUT 600)

  set_tests_properties(fortran_module fortran_module_error_stop abi_example_fortran_module
    fortran_module_standalone PROPERTIES LABELS "fortran")
  # Plain CALL SGEMM / CALL DGEMM against -ltessera (examples/fortran/sgemm_example.f90).
  if(TEST abi_example_fortran)
    set_property(TEST abi_example_fortran APPEND PROPERTY LABELS fortran)
  endif()
else()
  message(STATUS "tessera: no Fortran compiler, the Fortran module tests are not built")
endif()

# ---- Python: the package from the source tree, against this build's library ------------------
# The interpreter needs numpy, scipy and pytest (Debian: python3-numpy python3-scipy
# python3-pytest). The wheel itself (pip install ./bindings/python) is tested by .ci/run.
set(TESSERA_TEST_PYTHON "" CACHE FILEPATH
    "Python with numpy, scipy and pytest for the binding tests (empty: the first one found)")
set(_tsr_python_candidates ${TESSERA_TEST_PYTHON})
if(NOT TESSERA_TEST_PYTHON)
  find_program(_tsr_path_python3 NAMES python3 NO_CACHE)
  list(APPEND _tsr_python_candidates /usr/bin/python3 ${_tsr_path_python3})
endif()
set(TSR_TEST_PYTHON "")
foreach(_py IN LISTS _tsr_python_candidates)
  if(EXISTS "${_py}")
    execute_process(COMMAND "${_py}" -c "import numpy, scipy, pytest"
                    RESULT_VARIABLE _tsr_rv OUTPUT_QUIET ERROR_QUIET)
    if(_tsr_rv EQUAL 0)
      set(TSR_TEST_PYTHON "${_py}")
      break()
    endif()
  endif()
endforeach()

set(TSR_PYTHON_TESTS python_bindings python_example_gemm_numpy python_example_sparse_scipy
    python_example_walk_count)
if(TSR_TEST_PYTHON)
  message(STATUS "tessera: Python binding tests use ${TSR_TEST_PYTHON}")
  set(TSR_PYTHON_ENV
    "TESSERA_LIBRARY=$<TARGET_FILE:tessera>"
    "PYTHONPATH=${PROJECT_SOURCE_DIR}/bindings/python/src"
    "PYTHONDONTWRITEBYTECODE=1")
  # pytest's exit status 5 (nothing collected) fails the test like any other non-zero status.
  add_test(NAME python_bindings
    COMMAND ${TSR_TEST_PYTHON} -m pytest -q -rs -p no:cacheprovider
            ${PROJECT_SOURCE_DIR}/bindings/python/tests)
  foreach(_example IN ITEMS gemm_numpy sparse_scipy walk_count)
    add_test(NAME python_example_${_example}
      COMMAND ${TSR_TEST_PYTHON} ${PROJECT_SOURCE_DIR}/examples/python/${_example}.py)
  endforeach()
  set_tests_properties(${TSR_PYTHON_TESTS} PROPERTIES ENVIRONMENT "${TSR_PYTHON_ENV}")
else()
  message(STATUS "tessera: no Python with numpy, scipy and pytest; the Python binding tests "
                 "will be skipped (apt-get install python3-numpy python3-scipy python3-pytest)")
  foreach(_test IN LISTS TSR_PYTHON_TESTS)
    add_test(NAME ${_test} COMMAND sh -c
      "echo 'SKIPPED: no Python with numpy, scipy and pytest (apt-get install python3-numpy python3-scipy python3-pytest)'; exit 77")
  endforeach()
  set_tests_properties(${TSR_PYTHON_TESTS} PROPERTIES SKIP_RETURN_CODE 77)
endif()
set_tests_properties(${TSR_PYTHON_TESTS} PROPERTIES LABELS python)

# ---- Rust: the crate in bindings/rust (raw FFI and safe wrapper), where cargo is installed ---
find_program(TESSERA_CARGO NAMES cargo DOC "cargo, for the Rust crate's tests")
if(TESSERA_CARGO)
  add_test(NAME rust_bindings
    COMMAND ${TESSERA_CARGO} test --offline --quiet
            --manifest-path ${PROJECT_SOURCE_DIR}/bindings/rust/Cargo.toml)
  set_tests_properties(rust_bindings PROPERTIES LABELS rust TIMEOUT 600
    ENVIRONMENT "TESSERA_LIB_DIR=$<TARGET_FILE_DIR:tessera>;CARGO_TARGET_DIR=${CMAKE_CURRENT_BINARY_DIR}/rust-target")
  add_test(NAME rust_example_walk_count
    COMMAND ${TESSERA_CARGO} run --offline --quiet --example walk_count
            --manifest-path ${PROJECT_SOURCE_DIR}/bindings/rust/Cargo.toml)
  set_tests_properties(rust_example_walk_count PROPERTIES LABELS rust TIMEOUT 600
    DEPENDS rust_bindings
    ENVIRONMENT "TESSERA_LIB_DIR=$<TARGET_FILE_DIR:tessera>;CARGO_TARGET_DIR=${CMAKE_CURRENT_BINARY_DIR}/rust-target")
else()
  message(STATUS "tessera: no cargo, the Rust crate's tests are not registered")
endif()
