# Tessera as the system BLAS: the install layout and the Debian packages (CPack's DEB generator).
# Included from the top-level CMakeLists.txt after its install rules.
#
# ${libdir}/tessera/ has the shape of Debian's openblas-pthread/ and blis-openmp/ directories, so
# that LD_LIBRARY_PATH, a linker's -L or the distribution's alternatives can point at it:
#
#   libblas.so.3, libcblas.so.3   component Runtime: filter libraries of libtessera.so.<ABI>
#                                 with those SONAMEs (src/CMakeLists.txt), RUNPATH $ORIGIN/..
#   libblas.so -> libblas.so.3, blas.pc (-L<that dir> -lblas)  component Development
#
# A program linked with -lblas there records libblas.so.3 (not libtessera.so.<ABI>), so it
# follows the alternatives later on, as with any BLAS Debian ships.
#
# blas.pc names absolute paths: it is read through the alternatives' link in pkgconfig/, where
# ${pcfiledir} would be that directory, not this one. It is written at install time, so
# `cmake --install --prefix P` gets P in it.
#
# Packages (bash scripts/package.sh; docs/guide.md, "Tessera as the system BLAS"):
#
#   libtessera<ABI>   libs     the library and the .so.3 links; its maintainer scripts offer them
#                              as alternatives of libblas.so.3-<multiarch> and libcblas.so.3-<multiarch>
#   libtessera-dev    libdevel headers, libtessera.so, tessera.pc, the CMake package, and
#                              tessera/libblas.so (with blas.pc) for libblas.so-<multiarch>
#   libtessera-cuda   libs     the CUDA plugin, where it is built
#
# The alternatives' priority is below every BLAS Debian ships (OpenBLAS 100, BLIS 80, the
# reference BLAS 10): installing the packages changes no selection, Tessera is chosen on purpose.

set(TESSERA_SYSTEM_BLAS_DIR ${CMAKE_INSTALL_LIBDIR}/tessera)
set(_tsr_soname libtessera.so.${TESSERA_ABI_VERSION})

# The filters (built into ${PROJECT_BINARY_DIR}/system-blas); libblas.so is the -lblas link.
install(TARGETS tessera_blas_filter LIBRARY DESTINATION ${TESSERA_SYSTEM_BLAS_DIR}
        COMPONENT Runtime NAMELINK_COMPONENT Development)
install(TARGETS tessera_cblas_filter LIBRARY DESTINATION ${TESSERA_SYSTEM_BLAS_DIR}
        COMPONENT Runtime NAMELINK_SKIP)

# blas.pc, from the prefix being installed to (DESTDIR is added by file(INSTALL), not named).
if(IS_ABSOLUTE "${TESSERA_SYSTEM_BLAS_DIR}")
  set(_tsr_blas_dir_at_install "${TESSERA_SYSTEM_BLAS_DIR}")
else()
  set(_tsr_blas_dir_at_install "\${CMAKE_INSTALL_PREFIX}/${TESSERA_SYSTEM_BLAS_DIR}")
endif()
string(CONFIGURE [[
set(_tsr_blas_dir "@_tsr_blas_dir_at_install@")
file(WRITE "@PROJECT_BINARY_DIR@/system-blas-pc/blas.pc" "libdir=${_tsr_blas_dir}

Name: tessera-blas
Description: Tessera as the BLAS and CBLAS (gemm and gemv on Tessera's kernels, the rest forwarded)
Version: @PROJECT_VERSION@
Libs: -L\${libdir} -lblas
")
file(INSTALL "@PROJECT_BINARY_DIR@/system-blas-pc/blas.pc" DESTINATION "${_tsr_blas_dir}")
]] _tsr_blas_pc_code @ONLY)
install(CODE "${_tsr_blas_pc_code}" COMPONENT Development)

# ---- Debian packages ----------------------------------------------------------------------------
set(TESSERA_PACKAGE_MAINTAINER "The Tessera developers <tessera-developers@example.org>" CACHE STRING
    "Maintainer field of the Debian packages")
set(TESSERA_ALTERNATIVES_PRIORITY 5 CACHE STRING
    "Priority of Tessera in the BLAS alternatives (below OpenBLAS 100, BLIS 80, reference 10)")

set(TESSERA_MULTIARCH "${CMAKE_LIBRARY_ARCHITECTURE}")
if(NOT TESSERA_MULTIARCH)
  execute_process(COMMAND dpkg-architecture -qDEB_HOST_MULTIARCH OUTPUT_VARIABLE TESSERA_MULTIARCH
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
set(TESSERA_DEB_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
set(TESSERA_DEB_BLAS_DIR "${CMAKE_INSTALL_FULL_LIBDIR}/tessera")

set(_tsr_deb_revision 1)
set(_tsr_deb_version "${PROJECT_VERSION}-${_tsr_deb_revision}")
set(_tsr_runtime_package libtessera${TESSERA_ABI_VERSION})

# Maintainer scripts: register and remove the alternatives; ldconfig through its trigger.
set(_tsr_debian ${PROJECT_BINARY_DIR}/debian)
foreach(_pkg runtime dev)
  foreach(_script postinst prerm)
    configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/${_pkg}.${_script}.in
                   ${_tsr_debian}/${_pkg}/${_script} @ONLY
                   FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                    WORLD_READ WORLD_EXECUTE)
  endforeach()
endforeach()
file(WRITE ${_tsr_debian}/runtime/triggers "activate-noawait ldconfig\n")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tessera)
set(CPACK_PACKAGE_VENDOR "The Tessera developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_SET_DESTDIR ON) # blas.pc and the scripts name the real prefix, not the staging one
set(CPACK_OUTPUT_FILE_PREFIX packages)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL Runtime Development)
if(TESSERA_HAVE_CUDA)
  list(APPEND CPACK_COMPONENTS_ALL Cuda)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${_tsr_deb_revision})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${TESSERA_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON) # libc6, libgcc-s1, libgomp1, libstdc++6 from the ELF files
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME ${_tsr_runtime_package})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
# The routines Tessera has no kernel for are forwarded to another BLAS found at run time.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "libopenblas0 | libblis4 | libblas3")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA
    ${_tsr_debian}/runtime/postinst ${_tsr_debian}/runtime/prerm ${_tsr_debian}/runtime/triggers)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
"BLAS-style library with its own CPU and CUDA kernels (shared library)
Tessera computes dense matrix products (sgemm, dgemm, gemv) and sparse
matrix-vector products with its own kernels and exports the whole BLAS and
CBLAS: the routines it has no kernel for are forwarded to OpenBLAS, BLIS or
the reference BLAS. This package offers it as an alternative for
libblas.so.3 and libcblas.so.3; select it with
update-alternatives --config libblas.so.3-${TESSERA_MULTIARCH}.")

set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME libtessera-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "${_tsr_runtime_package} (= ${_tsr_deb_version})")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_CONTROL_EXTRA ${_tsr_debian}/dev/postinst ${_tsr_debian}/dev/prerm)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
set(CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION
"BLAS-style library with its own CPU and CUDA kernels (development files)
The header tessera/tessera.h, libtessera.so, tessera.pc and the CMake package
(find_package(tessera)). It also offers Tessera's libblas.so and blas.pc as an
alternative for libblas.so-${TESSERA_MULTIARCH}, so that -lblas and
pkg-config blas can name Tessera.")

set(CPACK_DEBIAN_CUDA_PACKAGE_NAME libtessera-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "${_tsr_runtime_package} (= ${_tsr_deb_version})")
set(CPACK_DEBIAN_CUDA_DESCRIPTION
"BLAS-style library with its own CPU and CUDA kernels (CUDA plugin)
libtessera_cuda.so, the CUDA backend that libtessera loads from its own
directory on first need. The CUDA runtime is linked in; it needs only the
NVIDIA driver (libcuda.so.1).")

include(CPack)
