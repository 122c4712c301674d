# Tessera as a complete BLAS/CBLAS (DESIGN.md, "How a call flows", step 4). From the list
# src/api/blas_symbols.txt (one LP64 name a line, `own` or `forward`) this writes into out_dir:
#
#   tessera.map               the version script: tsr_*, every listed name and its ILP64 twin,
#                             xerbla_, cblas_xerbla and reference CBLAS's two globals
#                             (RowMajorStrg, CBLAS_CallFromC); nothing else
#   blas_forward_stubs.S      one x86-64 entry point per forwarded name: a jump through its slot,
#                             filled on first call by src/api/blas_forward.cpp (x86-64 only)
#   blas_forward_table.inc    the forwarded names in slot order, for blas_forward.cpp
#   blas_filter.c             a placeholder for every exported BLAS name, the body of the
#                             filter libraries libblas.so.3 and libcblas.so.3 (src/CMakeLists.txt)
#
# ILP64 twins: a Fortran name `dgemv_` has the twin `dgemv_64_`, a CBLAS name `cblas_dgemv` has
# `cblas_dgemv_64` (the spelling of Tessera's own sgemm_64_/cblas_sgemm_64). A forwarded twin is
# looked up in the ILP64 backing BLAS under that name, then under OpenBLAS's suffix spelling
# (`cblas_dgemv64_`).

function(tessera_ilp64_twin name out)
  if(name MATCHES "_$")
    set(${out} "${name}64_" PARENT_SCOPE)
  else()
    set(${out} "${name}_64" PARENT_SCOPE)
  endif()
endfunction()

function(tessera_blas_forward list_file out_dir with_stubs)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${list_file}")
  file(STRINGS "${list_file}" lines REGEX "^[^#]")
  set(exported "")
  set(filter "")
  set(table "")
  set(stubs "")
  set(index 0)
  foreach(line IN LISTS lines)
    string(REGEX MATCH "^([A-Za-z0-9_]+)[ \t]+(own|forward)[ \t]*$" ok "${line}")
    if(NOT ok)
      message(FATAL_ERROR "${list_file}: cannot read the line '${line}'")
    endif()
    set(name "${CMAKE_MATCH_1}")
    set(who "${CMAKE_MATCH_2}")
    tessera_ilp64_twin("${name}" twin)
    string(APPEND filter "void ${name}(void) {}\nvoid ${twin}(void) {}\n")
    if(who STREQUAL "own")
      string(APPEND exported "    ${name}; ${twin};\n")
      continue()
    endif()
    if(NOT with_stubs)
      continue()
    endif()
    string(APPEND exported "    ${name}; ${twin};\n")
    set(alt "${twin}")
    if(name MATCHES "^cblas_")
      set(alt "${name}64_")
    endif()
    foreach(entry IN ITEMS "${name}|${name}|${name}|0" "${twin}|${twin}|${alt}|1")
      string(REPLACE "|" ";" parts "${entry}")
      list(GET parts 0 symbol)
      list(GET parts 1 lookup)
      list(GET parts 2 lookup_alt)
      list(GET parts 3 ilp64)
      string(APPEND table "    {\"${symbol}\", \"${lookup}\", \"${lookup_alt}\", ${ilp64}},\n")
      math(EXPR offset "8 * ${index}")
      string(APPEND stubs
        "    .p2align 4\n"
        "    .globl ${symbol}\n"
        "    .type ${symbol}, @function\n"
        "${symbol}:\n"
        "    endbr64\n"
        "    movq tsr_forward_slots+${offset}(%rip), %r11\n"
        "    testq %r11, %r11\n"
        "    je 1f\n"
        "    cmpb $0, tsr_forward_verbose(%rip)\n"
        "    jne 1f\n"
        "    jmp *%r11\n"
        "1:  movl $${index}, %r11d\n"
        "    jmp tsr_forward_slow\n"
        "    .size ${symbol}, .-${symbol}\n\n")
      math(EXPR index "${index} + 1")
    endforeach()
  endforeach()

  file(WRITE "${out_dir}/tessera.map.in"
    "/* Version script of libtessera.so, written by cmake/TesseraBlasForward.cmake from\n"
    "   src/api/blas_symbols.txt: only the contract's names are exported. */\n"
    "TESSERA_0 {\n"
    "  global:\n"
    "    tsr_*;\n"
    "    xerbla_; cblas_xerbla;\n"
    "    RowMajorStrg; CBLAS_CallFromC;\n"
    "${exported}"
    "  local:\n"
    "    *;\n"
    "};\n")
  configure_file("${out_dir}/tessera.map.in" "${out_dir}/tessera.map" COPYONLY)

  file(WRITE "${out_dir}/blas_forward_table.inc.in"
    "// Written by cmake/TesseraBlasForward.cmake from src/api/blas_symbols.txt: the forwarded\n"
    "// names in slot order (exported name, name in the backing BLAS, its other spelling, ILP64).\n"
    "${table}")
  configure_file("${out_dir}/blas_forward_table.inc.in" "${out_dir}/blas_forward_table.inc"
                 COPYONLY)

  # The filters' placeholders: at link time they tell the linker the names exist; at run time
  # the loader looks every name of a filter up in its filtee, libtessera.so, and never runs
  # these bodies.
  file(WRITE "${out_dir}/blas_filter.c.in"
    "/* Written by cmake/TesseraBlasForward.cmake from src/api/blas_symbols.txt: placeholders\n"
    "   of a filter library (DT_FILTER): the loader looks each name up in libtessera.so. */\n"
    "void xerbla_(void) {}\nvoid cblas_xerbla(void) {}\n"
    "int RowMajorStrg;\nint CBLAS_CallFromC;\n"
    "${filter}")
  configure_file("${out_dir}/blas_filter.c.in" "${out_dir}/blas_filter.c" COPYONLY)

  if(with_stubs)
    # The slow path: saves the argument registers (integer, vector, and %al for variadic calls),
    # asks tsr_forward_resolve for the slot's target (loading the backing BLAS on first need,
    # writing the call-log line when verbose) and jumps there with the caller's stack intact.
    file(WRITE "${out_dir}/blas_forward_stubs.S.in"
      "# Written by cmake/TesseraBlasForward.cmake from src/api/blas_symbols.txt.\n"
      "    .text\n"
      "    .p2align 4\n"
      "    .type tsr_forward_slow, @function\n"
      "tsr_forward_slow:\n"
      "    pushq %rbp\n"
      "    movq %rsp, %rbp\n"
      "    pushq %rdi\n    pushq %rsi\n    pushq %rdx\n    pushq %rcx\n"
      "    pushq %r8\n    pushq %r9\n    pushq %rax\n"
      "    subq $136, %rsp\n"
      "    movdqu %xmm0, 0(%rsp)\n    movdqu %xmm1, 16(%rsp)\n"
      "    movdqu %xmm2, 32(%rsp)\n    movdqu %xmm3, 48(%rsp)\n"
      "    movdqu %xmm4, 64(%rsp)\n    movdqu %xmm5, 80(%rsp)\n"
      "    movdqu %xmm6, 96(%rsp)\n    movdqu %xmm7, 112(%rsp)\n"
      "    movl %r11d, %edi\n"
      "    call tsr_forward_resolve\n"
      "    movq %rax, %r11\n"
      "    movdqu 0(%rsp), %xmm0\n    movdqu 16(%rsp), %xmm1\n"
      "    movdqu 32(%rsp), %xmm2\n    movdqu 48(%rsp), %xmm3\n"
      "    movdqu 64(%rsp), %xmm4\n    movdqu 80(%rsp), %xmm5\n"
      "    movdqu 96(%rsp), %xmm6\n    movdqu 112(%rsp), %xmm7\n"
      "    addq $136, %rsp\n"
      "    popq %rax\n    popq %r9\n    popq %r8\n    popq %rcx\n"
      "    popq %rdx\n    popq %rsi\n    popq %rdi\n"
      "    popq %rbp\n"
      "    jmp *%r11\n"
      "    .size tsr_forward_slow, .-tsr_forward_slow\n\n"
      "${stubs}"
      "    .section .note.GNU-stack,\"\",@progbits\n")
    configure_file("${out_dir}/blas_forward_stubs.S.in" "${out_dir}/blas_forward_stubs.S"
                   COPYONLY)
  endif()
  set(TESSERA_BLAS_FORWARD_COUNT ${index} PARENT_SCOPE)
endfunction()
