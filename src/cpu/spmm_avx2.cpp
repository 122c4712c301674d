// The avx2 sparse × dense kernels: the loops of spmm_rows.hpp, compiled with -mavx2 -mfma, run only
// where CPUID says so.
#include "cpu/spmm_rows.hpp"

TESSERA_SPMM_KERNELS(avx2, 32, 32, 16)
