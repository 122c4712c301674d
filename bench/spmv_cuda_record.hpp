// One GPU spmv record (tessera-bench spmv --backend cuda): the matrix, value and index type, op,
// and a side per Tessera format and per cuSPARSE algorithm, with the ratios the report prints.
// Plain C++: the report and JSON are built with or without CUDA.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spmv_case.hpp"
#include "statistics.hpp"

namespace tessera::bench {

struct GpuDeviceInfo {
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sms = 0;
    double memory_bytes = 0, l2_bytes = 0;
    double nominal_gbs = 0; // 2 x memory clock x bus width (0 when the device does not say)
    int driver_version = 0, runtime_version = 0;
    std::string cusparse_version; // "" when cuSPARSE is not used
};

struct CopyResult {
    double buffer_bytes = 0; // one buffer; a pass moves twice as much (read and write)
    int reps = 0;
    double median_gbs = 0, best_gbs = 0;
};

struct GpuSpmvSide {
    std::string
        name; // "csr", ..., "auto", or "cusparse-csr1", "cusparse-csr2", "cusparse-coo1", ...
    std::string library; // "tessera" or "cusparse"
    std::string format;  // the format that ran (for auto: the one it chose)
    std::string status;  // "ok", "refused" (padding limit), "failed", "unavailable", "wrong"
                         // (outside the bound)
    std::string message;
    int batch = 1;          // products per timed batch
    Summary time;           // seconds per product, CUDA events
    double wall_median = 0; // seconds per product, host clock around a batch and a device sync
    double gflops = 0, gbs = 0, rel_error = 0;
    int64_t outside = 0;       // entries of y outside the componentwise bound (spmv_case.hpp)
    double worst_of_bound = 0; // the largest |y_i - ref_i| / bound_i
    // Tessera with x and y in host memory (csr and auto): the copies are part of the call.
    std::string host_status; // "" when not measured, else as status
    std::string host_message;
    int host_batch = 1;
    Summary host_time; // seconds per product, host clock
    double host_rel_error = 0;
    int64_t host_outside = 0;
    bool timed() const { return status == "ok" || status == "wrong"; }
    bool events_suspect() const; // the events saw far less time than the host clock
};

struct GpuSpmvRecord : SpmvRecordHead {
    double copy_gbs = 0;        // the device copy's bandwidth for this record
    bool copy_in_turns = false; // measured in turns with the products (else alone, at the start)
    std::string note;           // a failure of the record as a whole
    std::vector<GpuSpmvSide> sides;

    const GpuSpmvSide *side(const std::string &name) const;
    std::string best_format() const;   // Tessera's fastest correct named format
    std::string cusparse_best() const; // cuSPARSE's fastest correct algorithm
    // anchor's median / side's median (> 1: the side is faster); 0 when either is not ok.
    double speedup(const std::string &name, const std::string &anchor) const;
    double auto_over_best() const; // time of the format AUTO chose / the best format's (0: n/a)
    double copy_fraction(const GpuSpmvSide &s) const; // s's GB/s / copy GB/s (0: n/a)
};

} // namespace tessera::bench
