// What the numbers were measured on: CPU model and features, core count, host, kernel,
// compiler and the date, for the banner and the JSON record.
#pragma once

#include <string>

namespace tessera::bench {

struct MachineInfo {
    std::string cpu_model;    // "model name" of /proc/cpuinfo
    int logical_cpus = 0;     // online logical CPUs
    std::string cpu_features; // the SIMD features that matter to gemm kernels
    std::string hostname;
    std::string kernel;   // uname -sr
    std::string compiler; // the compiler that built tessera-bench
    std::string date_utc; // ISO 8601, when the run started
};

MachineInfo probe_machine();

// Whether TESSERA_CPU_ISA=avx2 narrows Tessera's kernels to AVX2: the anchors then run their
// AVX2 code too (OpenBLAS Haswell, BLIS haswell, libxsmm hsw), so that each of Tessera's ISA
// paths is timed against its like on an AVX-512 machine.
bool isa_narrowed_to_avx2();

} // namespace tessera::bench
