# The walls between the library's layers hold (src/CMakeLists.txt): each case compiles one
# include with a layer's own include path (its folder of links under ${WALLS}) and expects it to
# compile or to fail. Run as:
#   cmake -DCXX=... -DWALLS=... -DINCLUDE=... -DGENERATED_INCLUDE=... -DWORK=... -P check_walls.cmake
# (GENERATED_INCLUDE: the build's folder of tessera_version.h, which tessera.h includes).
set(cases
  # target             header                     expected
  "tessera_sparse      sparse/storage.hpp         ok"
  "tessera_sparse      core/backend.hpp           refused"
  "tessera_core        core/backend.hpp           ok"
  "tessera_core        sparse/storage.hpp         ok"
  "tessera_core        cpu/backend.hpp            refused"
  "tessera_core        reference/backend.hpp      refused"
  "tessera_core        api/gemm_front.hpp         refused"
  "tessera_cpu         cpu/backend.hpp            ok"
  "tessera_cpu         reference/backend.hpp      refused"
  "tessera_cpu         api/gemm_front.hpp         refused"
  "tessera_reference   reference/backend.hpp      ok"
  "tessera_reference   cpu/backend.hpp            refused"
  "tessera             cpu/backend.hpp            ok"
  "tessera_cuda        core/backend.hpp           ok"
  "tessera_cuda        cpu/backend.hpp            refused"
  "tessera_cuda        reference/backend.hpp      refused")
file(MAKE_DIRECTORY ${WORK})
set(failures 0)
foreach(case IN LISTS cases)
  string(REGEX REPLACE " +" ";" fields "${case}")
  list(GET fields 0 target)
  list(GET fields 1 header)
  list(GET fields 2 expected)
  if(NOT IS_DIRECTORY ${WALLS}/${target})
    message(STATUS "skip ${target}: not built here")
    continue()
  endif()
  string(MAKE_C_IDENTIFIER "${target}_${header}" name)
  file(WRITE ${WORK}/${name}.cpp "#include \"${header}\"\n")
  execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -I${WALLS}/${target} -I${INCLUDE}
                          -I${GENERATED_INCLUDE} ${WORK}/${name}.cpp
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    set(got ok)
  elseif(err MATCHES "No such file or directory")
    set(got refused)
  else()
    set(got "error: ${err}")
  endif()
  if(got STREQUAL expected)
    message(STATUS "${target}: #include \"${header}\" -> ${got}")
  else()
    message(SEND_ERROR "${target}: #include \"${header}\" expected ${expected}, got ${got}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} wall checks failed")
endif()
