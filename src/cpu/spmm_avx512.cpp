// The avx512 sparse × dense kernels: the loops of spmm_rows.hpp, compiled with -mavx512f -mavx512vl
// -mfma, run only where CPUID says so.
#include "cpu/spmm_rows.hpp"

TESSERA_SPMM_KERNELS(avx512, 64, 64, 32)
