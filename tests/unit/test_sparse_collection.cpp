// Every Matrix Market file of the shared SuiteSparse set (../shared/matrices beside the
// repository): read against its index, then products in every format × value type × index
// type × op against the oracle. Skipped, with a message, where the set is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "sparse_support.hpp"

namespace {

using tessera::test::Door;
using tessera::test::Entries;

// nnz_full of each file in the set's index (matrices.tsv), by file name.
std::map<std::string, int64_t> indexed_nnz() {
    std::map<std::string, int64_t> out;
    std::ifstream in(tessera::test::shared_matrices_dir() + "/matrices.tsv");
    std::string line;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> cells;
        std::stringstream s(line);
        for (std::string cell; std::getline(s, cell, '\t');) cells.push_back(cell);
        if (header.empty()) {
            header = cells;
            continue;
        }
        const auto file = std::find(header.begin(), header.end(), "file") - header.begin();
        const auto full = std::find(header.begin(), header.end(), "nnz_full") - header.begin();
        if (size_t(file) < cells.size() && size_t(full) < cells.size())
            out[cells[size_t(file)]] = std::stoll(cells[size_t(full)]);
    }
    return out;
}

class SparseCollection : public ::testing::TestWithParam<std::string> {};

template <typename T>
void products(const Entries &e, tsr_handle h, tsr_format format, tsr_index_type itype, Door door,
              uint64_t seed) {
    SCOPED_TRACE(std::string("dtype=") + (sizeof(T) == 4 ? "f32" : "f64") +
                 " itype=" + (itype == TSR_INDEX_I32 ? "i32" : "i64") + " door=" + door_name(door) +
                 " format=" + tessera::test::format_label(format));
    tsr_sparse A = nullptr;
    ASSERT_EQ(tessera::test::create_matrix<T>(h, e, itype, door, &A), TSR_SUCCESS)
        << tsr_last_error();
    const tsr_status s = tsr_sparse_optimize(h, A, format);
    if (s == TSR_ERR_NOT_SUPPORTED) {
        EXPECT_TRUE(format == TSR_FORMAT_ELL || format == TSR_FORMAT_DIA) << tsr_last_error();
    } else {
        ASSERT_EQ(s, TSR_SUCCESS) << tsr_last_error();
        for (tsr_op op : {TSR_OP_N, TSR_OP_T}) {
            EXPECT_TRUE(tessera::test::check_product<T>(h, A, e, {op, 1.0, 0.0}, seed++));
            EXPECT_TRUE(tessera::test::check_product<T>(h, A, e, {op, -0.5, 2.0}, seed++));
        }
    }
    tsr_sparse_destroy(A);
}

TEST_P(SparseCollection, ReadAndMultiplyInEveryFormat) {
    if (GetParam() == "none")
        GTEST_SKIP() << "the shared matrices are not beside the repository (../shared/matrices)";
    const std::string path = tessera::test::shared_matrices_dir() + "/" + GetParam() + ".mtx";
    const tessera::bench::CooMatrix m = tessera::bench::read_matrix_market(path);
    const auto index = indexed_nnz();
    if (auto it = index.find(GetParam() + ".mtx"); it != index.end())
        EXPECT_EQ(m.nnz(), it->second) << "expanded entries differ from the index's nnz_full";
    Entries e = tessera::test::from_coo(m);
    e.name = GetParam();

    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_num_threads(h, 2), TSR_SUCCESS);
    uint64_t seed = std::hash<std::string>{}(GetParam());
    int variant = 0;
    for (tsr_format format : {TSR_FORMAT_AUTO, TSR_FORMAT_CSR, TSR_FORMAT_COO, TSR_FORMAT_ELL,
                              TSR_FORMAT_DIA, TSR_FORMAT_HYB})
        for (tsr_index_type itype : {TSR_INDEX_I32, TSR_INDEX_I64}) {
            const Door door = (variant++ % 2) ? Door::coo : Door::csr;
            products<float>(e, h, format, itype, door, seed += 10);
            products<double>(e, h, format, itype, door == Door::csr ? Door::coo : Door::csr,
                             seed += 10);
        }
    tsr_destroy(h);
}

INSTANTIATE_TEST_SUITE_P(SuiteSparse, SparseCollection,
                         ::testing::ValuesIn(tessera::test::shared_matrix_names()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                             std::string n = info.param;
                             for (char &c : n)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return n;
                         });

} // namespace
