// Which instruction set the CPU backend's micro-kernels use: the best one CPUID reports,
// or the one TESSERA_CPU_ISA forces (for tests and benchmarks).
#pragma once

#include "cpu/kernels/microkernel.hpp"

namespace tessera::cpu {

enum class Isa { generic, avx2, avx512 };

bool isa_supported(Isa isa);
const char *isa_name(Isa isa);

// Chosen once per process; a forced ISA the CPU lacks gets one warning and the best one.
Isa active_isa();

// The bytes of one core's L2 cache (from the C library; 512 KiB where it does not say).
int64_t l2_bytes();

// The micro-kernel and block sizes of the active ISA.
template <typename T> const MicroKernel<T> &active_kernel();

} // namespace tessera::cpu
