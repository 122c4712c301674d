# LD_PRELOAD drop-in tests on real programs: Debian's numpy (cblas_sgemm/cblas_dgemm through
# libblas.so.3) and a Fortran program linked with -lblas, on the CPU and, where present, CUDA.

# Says whether a backend can run here (exit 77 when it cannot: the CUDA variants are skipped).
add_executable(abi_backend_probe backend_probe.c)
target_link_libraries(abi_backend_probe PRIVATE tessera)

set(TSR_DROPIN_LIBRARY $<TARGET_SONAME_FILE:tessera>)
set(TSR_DROPIN_TESTS)
set(TSR_DROPIN_CUDA_TESTS)

# numpy: the distribution's build, which reaches its BLAS through the dynamic linker (a numpy
# from pip carries its own renamed OpenBLAS and cannot be served by a preload).
set(TESSERA_DROPIN_PYTHON "/usr/bin/python3" CACHE FILEPATH
    "Python whose numpy calls the system's libblas.so.3 (Debian's python3-numpy)")
if(EXISTS "${TESSERA_DROPIN_PYTHON}")
  add_test(NAME abi_dropin_numpy
    COMMAND ${TESSERA_DROPIN_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/dropin_numpy.py
            ${TSR_DROPIN_LIBRARY} --backend cpu)
  add_test(NAME abi_dropin_numpy_cuda
    COMMAND ${TESSERA_DROPIN_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/dropin_numpy.py
            ${TSR_DROPIN_LIBRARY} --backend cuda)
  set_tests_properties(abi_dropin_numpy abi_dropin_numpy_cuda PROPERTIES
    LABELS "abi;python" ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")
  list(APPEND TSR_DROPIN_TESTS abi_dropin_numpy abi_dropin_numpy_cuda)
  list(APPEND TSR_DROPIN_CUDA_TESTS abi_dropin_numpy_cuda)
else()
  message(STATUS "tessera: ${TESSERA_DROPIN_PYTHON} not found, the numpy drop-in test is not registered")
endif()

# Fortran: CALL SGEMM / CALL DGEMM in a program linked with the system BLAS, never with Tessera.
if(CMAKE_Fortran_COMPILER)
  find_library(TESSERA_SYSTEM_BLAS NAMES blas
    DOC "The system BLAS the drop-in test program links (libblas.so)")
  if(TESSERA_SYSTEM_BLAS)
    add_executable(abi_dropin_blas dropin_blas.f90)
    target_link_libraries(abi_dropin_blas PRIVATE ${TESSERA_SYSTEM_BLAS})
    add_test(NAME abi_dropin_fortran
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/dropin_run.sh $<TARGET_FILE:abi_dropin_blas>
              ${TSR_DROPIN_LIBRARY} cpu)
    add_test(NAME abi_dropin_fortran_cuda
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/dropin_run.sh $<TARGET_FILE:abi_dropin_blas>
              ${TSR_DROPIN_LIBRARY} cuda $<TARGET_FILE:abi_backend_probe>)
    set_tests_properties(abi_dropin_fortran abi_dropin_fortran_cuda PROPERTIES
      LABELS "abi;fortran")
    list(APPEND TSR_DROPIN_TESTS abi_dropin_fortran abi_dropin_fortran_cuda)
    list(APPEND TSR_DROPIN_CUDA_TESTS abi_dropin_fortran_cuda)
  else()
    message(STATUS "tessera: no system libblas.so (apt-get install libblas-dev or "
                   "libopenblas-dev), the Fortran drop-in test is not registered")
  endif()
endif()

if(TSR_DROPIN_TESTS)
  set_tests_properties(${TSR_DROPIN_TESTS} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
if(TSR_DROPIN_CUDA_TESTS)
  set_property(TEST ${TSR_DROPIN_CUDA_TESTS} APPEND PROPERTY LABELS cuda)
endif()
