// The generic sparse × dense kernels: the loops of spmm_rows.hpp, built for the baseline
// instruction set (SSE2 on x86-64).
#include "cpu/spmm_rows.hpp"

TESSERA_SPMM_KERNELS(generic, 16, 16, 8)
