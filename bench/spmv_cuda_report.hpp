// What "tessera-bench spmv --backend cuda" prints and writes: the banner (device, cuSPARSE, the
// copy bandwidth), a row per side as records arrive, the summary (CSR and AUTO against the copy
// and against cuSPARSE) and the JSON. Plain C++, built with or without CUDA.
#pragma once

#include <ostream>
#include <vector>

#include "json_output.hpp"
#include "spmv_cuda_record.hpp"
#include "table.hpp"

namespace tessera::bench {

class GpuSpmvTable {
public:
    explicit GpuSpmvTable(std::ostream &out);
    void header();
    void record(const GpuSpmvRecord &r);

private:
    std::ostream &out_;
    Table table_;
};

void print_gpu_device(std::ostream &out, const GpuDeviceInfo &d, const CopyResult &copy);
void print_gpu_spmv_summary(std::ostream &out, const std::vector<GpuSpmvRecord> &records);

Json gpu_device_json(const GpuDeviceInfo &d);
Json copy_json(const CopyResult &c);
Json gpu_spmv_record_json(const GpuSpmvRecord &r);

} // namespace tessera::bench
