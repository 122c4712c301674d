#!/usr/bin/env python3
# Writes the seed corpora of tests/fuzz/corpus/: byte strings that the harnesses decode into named
# cases (valid products and the known nasty arguments). Run it again after changing a decoder.
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Encoder:
    """Bytes for clang's FuzzedDataProvider: integers are taken from the end of the data, most
    significant byte first, as many bytes as the range needs; a value v in [lo, hi] is v - lo."""

    def __init__(self):
        self.taken = []

    def int(self, lo, hi, v, bits=64):
        assert lo <= v <= hi, (lo, hi, v)
        span, n = hi - lo, 0
        while n * 8 < bits and (span >> (n * 8)) > 0:
            n += 1
        self.taken += list((v - lo).to_bytes(n, "big")) if n else []

    def u8(self, v):
        self.int(0, 255, v)

    def bool(self, v):
        self.u8(1 if v else 0)

    def data(self):
        return bytes(reversed(self.taken))


COMMON = [0, 1, -1, 0.5, 2, -1.5, 0.25, 3]  # fuzz_support.hpp: scale()
NAN, INF, NINF = "nan", "inf", "-inf"


def small(e, v):
    e.int(-511, 511, int(round(v * 64)), bits=16)


def scale(e, v):
    if v in COMMON:
        e.u8(COMMON.index(v))
    else:
        e.u8(200)
        small(e, v)


def non_finite(e, v):
    e.int(0, 2, [NAN, INF, NINF].index(v), bits=32)


# ---- fuzz_sparse.cpp ---------------------------------------------------------------------------

def sparse(mode, coo, f64, i64, rows, cols, entries, banded=False, spoil=None, prods=None):
    """entries: (row, col or band offset, value) with value a number, 0 or NAN/INF/NINF."""
    e = Encoder()
    e.int(0, 15, mode, bits=32)
    e.bool(coo)
    e.bool(f64)
    e.bool(i64)
    e.int(0, 64, rows)
    e.int(0, 64, cols)
    e.bool(banded)
    e.int(0, 256, len(entries))
    for r, j, v in entries:
        e.int(0, rows - 1, r)
        if banded:
            e.int(-3, 3, j)
        else:
            e.int(0, cols - 1, j)
        if isinstance(v, str):
            e.u8(0)
            non_finite(e, v)
        elif v == 0:
            e.u8(10)
        else:
            e.u8(100)
            small(e, v)
    if spoil:
        spoil(e)
    if prods:
        prods(e, rows, cols)
    return e.data()


def product(e, n_in, n_out, alpha, beta, inject=()):
    scale(e, alpha)
    scale(e, beta)
    if alpha != 0:
        for i in range(n_in):
            small(e, ((i * 37) % 23 - 11) / 8)
        if n_in > 0:
            e.int(0, 3, 0 if inject else 1, bits=32)
            if inject:
                e.int(1, 2, len(inject), bits=32)
                for idx, v in inject:
                    e.int(0, n_in - 1, idx)
                    non_finite(e, v)
    if beta != 0:
        for i in range(n_out):
            small(e, ((i * 29) % 17 - 8) / 4)
    if alpha == 0:
        e.bool(False)


def products(alpha, beta, inject=(), two_threads=False, transpose="T", start=0):
    def write(e, rows, cols):
        e.bool(two_threads)
        product(e, cols, rows, alpha, beta, inject)
        e.bool(transpose == "T")
        product(e, rows, cols, alpha, beta, [(i % rows, v) for i, v in inject] if rows else ())
        e.int(0, 5, start)
    return write


HUGE = [1 << 40, (1 << 40) + 1, 1 << 48, 1 << 60, (1 << 60) + 1, (1 << 61) - 1, 1 << 61, 1 << 62, (1 << 63) - 1]
NEGATIVE = [-1, -2, -(1 << 40), -(1 << 63)]


def sparse_seeds():
    tri = [(0, 0, 2), (0, 1, -1), (1, 0, -1), (1, 1, 2), (1, 2, -1), (2, 1, -1), (2, 2, 2)]
    dups = [(0, 0, 1), (2, 3, 0.5), (0, 0, 1), (1, 1, -2), (2, 3, -0.5), (3, 0, 4), (1, 1, 2)]
    band = [(i, d, 1 + d / 4) for i in range(8) for d in (-1, 0, 1)]
    zeros = [(0, 0, 1), (1, 1, 0), (2, 2, 3), (3, 3, 0), (1, 0, 0.5)]
    seeds = {
        "csr_f64_i64_tridiagonal": sparse(0, False, True, True, 3, 3, tri, prods=products(1, 0)),
        "csr_f32_i32_tridiagonal_scaled": sparse(1, False, False, False, 3, 3, tri, prods=products(-1.5, 0.5)),
        "coo_f32_i32_duplicates": sparse(2, True, False, False, 4, 5, dups, prods=products(2, -1, transpose="C")),
        "coo_f64_i64_duplicates_two_threads": sparse(3, True, True, True, 4, 5, dups, prods=products(0.5, 1, two_threads=True)),
        "csr_f64_banded_8x8": sparse(4, False, True, True, 8, 8, band, banded=True, prods=products(1, 1, start=3)),
        # NaN in x where a stored zero multiplies it (x[1]) and where DIA's fill would (x[2]).
        "csr_f64_nan_in_x_stored_zero": sparse(5, False, True, True, 4, 4, zeros, prods=products(1, 0, inject=[(1, NAN)], start=3)),
        "csr_f64_nan_in_x_dia_fill": sparse(5, False, True, True, 4, 4, zeros, prods=products(1, 0, inject=[(2, NAN)], start=3)),
        "coo_f32_inf_in_x": sparse(6, True, False, False, 8, 8, band, banded=True, prods=products(-1, 2, inject=[(3, INF), (5, NINF)], start=3)),
        "csr_f64_inf_stored": sparse(7, False, True, True, 3, 3, [(0, 0, INF), (1, 2, NAN), (2, 1, 1)], prods=products(1, 0)),
        "csr_empty_0x0": sparse(8, False, True, False, 0, 0, []),
        "coo_empty_rows_5x0": sparse(9, True, False, True, 5, 0, [], prods=products(1, 0.5)),
        "csr_alpha0_beta1_quick": sparse(0, False, True, True, 3, 3, tri, prods=products(0, 1)),
    }
    # Huge sizes: rows of (1 << 61) - 1 and INT64_MAX with nnz 0 and NULL arrays; 1 x 2^40.
    for name, value, coo in [("csr_rows_2p61m1_null", (1 << 61) - 1, False), ("coo_rows_int64max_null", (1 << 63) - 1, True),
                             ("csr_rows_2p40_null", 1 << 40, False), ("csr_rows_2p60_null", 1 << 60, False)]:
        def spoil(e, value=value, coo=coo):
            e.int(0, 3, 0, bits=32)       # huge: rows
            e.int(0, len(HUGE) - 1, HUGE.index(value))
            if coo:
                e.bool(True)              # NULL arrays, nnz 0
        seeds[name] = sparse(10, coo, True, True, 3, 3, tri if not coo else [], spoil=spoil)

    def cols_2p40(e):
        e.int(0, 3, 1, bits=32)
        e.int(0, len(HUGE) - 1, 0)
    seeds["csr_1x2p40_two_entries"] = sparse(10, False, True, True, 1, 4, [(0, 0, 1), (0, 3, 2)], spoil=cols_2p40)

    def i32_beyond(e):
        e.bool(True)                      # the 32-bit table
        e.int(0, 3, 1, bits=32)           # cols
        e.int(0, 2, 0)                    # 2^31
    seeds["coo_i32_cols_2p31"] = sparse(10, True, False, False, 3, 3, tri, spoil=i32_beyond)

    def huge_nnz(e):
        e.int(0, 3, 3, bits=32)
        e.int(0, len(HUGE) - 1, len(HUGE) - 1)
    seeds["csr_nnz_int64max_null"] = sparse(10, False, True, True, 3, 3, tri, spoil=huge_nnz)

    for name, which, value in [("csr_rows_negative", 0, -1), ("coo_cols_int64min", 1, -(1 << 63)), ("csr_nnz_negative", 2, -2)]:
        def spoil(e, which=which, value=value):
            e.int(0, len(NEGATIVE) - 1, NEGATIVE.index(value))
            e.int(0, 2, which, bits=32)
        coo = name.startswith("coo")
        seeds[name] = sparse(11, coo, True, True, 4 if coo else 3, 5 if coo else 3, dups if coo else tri, spoil=spoil)

    def bad_col(e):
        e.int(0, len(tri) - 1, 4)
        e.int(0, 9, 0)                    # col = cols
    seeds["csr_column_out_of_range"] = sparse(12, False, True, True, 3, 3, tri, spoil=bad_col)

    def non_monotone(e):
        e.int(1, 3, 2)                    # row_ptr[2]
        e.int(1, 3, 3)
        e.bool(True)                      # row_ptr[2] = row_ptr[1] - 3
        e.bool(False)
    seeds["csr_row_ptr_not_monotone"] = sparse(13, False, False, False, 3, 3, tri, spoil=non_monotone)

    def coo_bad_row(e):
        e.int(0, len(dups) - 1, 2)
        e.int(0, 9, 3)                    # row = -1
    seeds["coo_row_negative"] = sparse(13, True, True, False, 4, 5, dups, spoil=coo_bad_row)

    def nnz_short(e):
        e.bool(False)                     # declared nnz, not row_ptr ends
        e.int(-3, 3, -2, bits=64)
    seeds["csr_nnz_differs_from_row_ptr"] = sparse(14, False, True, True, 3, 3, tri, spoil=nnz_short)

    def null_values(e):
        e.int(0, 4, 2, bits=32)
    seeds["coo_values_null"] = sparse(15, True, False, True, 4, 5, dups, spoil=null_values)

    def bad_dtype(e):
        e.int(0, 4, 3, bits=32)
        e.int(0, 3, 1)                    # dtype 2
    seeds["csr_dtype_2"] = sparse(15, False, True, True, 3, 3, tri, spoil=bad_dtype)
    return seeds


# ---- fuzz_gemm_args.cpp ------------------------------------------------------------------------

DIMS = [0, 1, -1, -2, 2**31 - 1, 2**31, 1 << 32, 1 << 40, 1 << 61, (1 << 61) + 1, 1 << 62, 2**63 - 1, -(2**63), -(1 << 40)]
LDS = [0, -1, 2**31, 1 << 40, 1 << 61, 2**63 - 1, -(2**63)]
OPS = {"N": 0, "T": 1, "C": 2, 0: 5, 110: 6, 114: 7}
CHARS = {"N": 0, "T": 1, "C": 2, "n": 3, "t": 4, "c": 5, "X": 8, "\0": 9, " ": 10}


def dimension(e, v):
    if 0 <= v <= 9:
        e.u8(0)
        e.int(0, 9, v)
    elif 0 <= v <= 40:
        e.u8(160)
        e.int(0, 40, v)
    else:
        e.u8(216 + (DIMS.index(v) - 216 % 14) % 14)


def leading(e, spec):
    """spec: None (the least legal), ('pad', p), 'short', or a value of LDS."""
    if spec is None:
        e.u8(0)
    elif isinstance(spec, tuple):
        e.u8(120)
        e.int(0, 3, spec[1])
    elif spec == "short":
        e.u8(200)
    else:
        e.u8(216 + (LDS.index(spec) - 216 % 7) % 7)


def gemm(door, m, n, k, lda=None, ldb=None, ldc=None, alpha=1, beta=0, layout="col", ta="N", tb="N",
         handle=0, values=0):
    """door: 'tsr_s', 'tsr_d', 'cblas' or 'fortran'; handle 0/1 CPU threads, 2 reference, 3 NULL.
    values: how many small values follow for the operands (the rest decode as -511/64)."""
    e = Encoder()
    e.int(0, 7, {"tsr_s": 0, "tsr_d": 3, "cblas": 6, "fortran": 7}[door], bits=32)
    e.u8(handle)
    e.u8({"col": 0, "row": 1, "bad": 240}[layout])
    e.int(0, 8, OPS[ta] if door != "fortran" else 0)
    e.int(0, 8, OPS[tb] if door != "fortran" else 0)
    e.int(0, 10, CHARS[ta] if door == "fortran" else 0)
    e.int(0, 10, CHARS[tb] if door == "fortran" else 0)
    for v in (m, n, k):
        dimension(e, v)
    for spec in (lda, ldb, ldc):
        leading(e, spec)
    scale(e, alpha)
    scale(e, beta)
    e.int(0, 7, 1, bits=32)               # no Inf or NaN injected
    for i in range(values):
        small(e, ((i * 37) % 41 - 20) / 8)
    return e.data()


def gemm_seeds():
    return {
        "tsr_d_col_nn_3x2x4": gemm("tsr_d", 3, 2, 4, alpha=1, beta=0.5, values=30),
        "tsr_s_row_tn_5x3x2_padded": gemm("tsr_s", 5, 3, 2, lda=("pad", 3), ldb=("pad", 1), ldc=("pad", 2), layout="row",
                                          ta="T", alpha=-1.5, beta=1, values=60),
        "tsr_d_col_tc_7x9x6_cpu2": gemm("tsr_d", 7, 9, 6, ta="T", tb="C", alpha=2, beta=-1, handle=1, values=200),
        "tsr_s_reference_17x5x33": gemm("tsr_s", 17, 5, 33, lda=("pad", 1), alpha=0.5, beta=0, handle=2, values=900),
        "tsr_d_default_handle_beta0": gemm("tsr_d", 4, 4, 4, ldc=("pad", 3), alpha=1, beta=0, handle=3, values=60),
        "cblas_row_nt_4x6x3": gemm("cblas", 4, 6, 3, layout="row", tb="T", alpha=-1, beta=2, values=60),
        "fortran_nT_lowercase": gemm("fortran", 5, 4, 3, ta="n", tb="T", alpha=3, beta=0.25, values=60),
        "quick_return_alpha0_beta1": gemm("tsr_d", 3, 3, 3, alpha=0, beta=1, values=20),
        "k0_beta_scale": gemm("tsr_s", 6, 2, 0, alpha=1, beta=-1.5, values=20),
        "m0_null_c": gemm("tsr_d", 0, 5, 5, alpha=1, beta=0),
        # The nasty ones: extents that overflow, a leading dimension of INT64_MAX, sizes of 2^61.
        "all_2p40": gemm("tsr_d", 1 << 40, 1 << 40, 1 << 40, lda=1 << 40, ldb=1 << 40, ldc=1 << 40),
        "ldc_int64max_n1": gemm("tsr_d", 3, 1, 2, ldc=2**63 - 1, alpha=1, beta=1, values=20),
        "ldc_int64max_n2": gemm("tsr_s", 3, 2, 2, ldc=2**63 - 1, alpha=1, beta=1),
        "lda_int64max_k1": gemm("tsr_s", 6, 7, 1, lda=2**63 - 1, alpha=-1.5, beta=0, values=20),
        "transposed_m2_k2p61": gemm("tsr_s", 2, 1, 1 << 61, ta="T", alpha=1, beta=0),
        "transposed_m2_k2p61_fortran": gemm("fortran", 2, 3, 1 << 61, ta="T", alpha=1, beta=0),
        "row_major_k2p61": gemm("cblas", 2, 2, 1 << 61, layout="row", alpha=1, beta=0),
        "alpha0_k2p40_small_c": gemm("tsr_d", 2, 2, 1 << 40, alpha=0, beta=2, values=8),
        "lda_short": gemm("tsr_d", 4, 4, 4, lda="short", alpha=1, beta=0),
        "ldb_zero": gemm("cblas", 4, 4, 4, ldb=0, alpha=1, beta=0),
        "m_negative": gemm("tsr_s", -1, 4, 4),
        "k_int64min": gemm("fortran", 3, 3, -(2**63)),
        "layout_bad": gemm("tsr_d", 3, 3, 3, layout="bad"),
        "op_bad_cblas": gemm("cblas", 3, 3, 3, ta=114),
        "op_bad_fortran": gemm("fortran", 3, 3, 3, ta="X"),
    }


# ---- fuzz_matrix_market.cpp --------------------------------------------------------------------

def mm_seeds():
    b = "%%MatrixMarket matrix coordinate "
    return {
        "general_real": b + "real general\n% a comment\n3 3 4\n1 1 2.5\n2 3 -1\n3 1 1e-3\n3 3 4\n",
        "symmetric_real": b + "real symmetric\n4 4 5\n1 1 1\n2 1 -2\n3 2 0.5\n4 4 3\n4 1 7\n",
        "skew_symmetric_integer": b + "integer skew-symmetric\n3 3 2\n2 1 4\n3 2 -5\n",
        "pattern_general": b + "pattern general\n2 5 3\n1 1\n2 5\n1 3\n",
        "pattern_symmetric_crlf": b + "pattern symmetric\r\n3 3 2\r\n2 1\r\n3 3\r\n",
        "integer_general_blank_lines": b + "integer general\n\n%\n2 2 2\n\n1 2 3\n2 1 -4\n\n",
        "uppercase_banner": "%%MatrixMarket MATRIX Coordinate REAL General\n1 1 1\n1 1 1\n",
        "array_dense": "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
        "complex_refused": b + "complex general\n1 1 1\n1 1 1 0\n",
        "hermitian_refused": b + "real hermitian\n2 2 1\n1 1 1\n",
        "symmetric_2p62_entries": b + "real symmetric\n4 4 4611686018427387904\n1 1 1\n",
        "general_1e12_entries": b + "pattern general\n9 9 1000000000000\n1 1\n2 2\n",
        "rows_int64max": b + "real general\n9223372036854775807 9223372036854775807 1\n1 1 1\n",
        "size_overflow": b + "real general\n99999999999999999999 1 1\n1 1 1\n",
        "negative_size": b + "real general\n-1 3 1\n1 1 1\n",
        "entry_outside": b + "real general\n2 2 1\n3 1 1\n",
        "entry_index_overflow": b + "real general\n2 2 1\n1 99999999999999999999 1\n",
        "more_entries_than_announced": b + "real general\n2 2 1\n1 1 1\n2 2 2\n",
        "fewer_entries_than_announced": b + "real general\n2 2 3\n1 1 1\n",
        "values_inf_nan_hex": b + "real general\n2 2 3\n1 1 inf\n2 2 nan\n1 2 0x1p-3\n",
        "no_size_line": b + "real general\n% only comments\n",
        "empty": "",
    }


def write(harness, seeds):
    out = os.path.join(HERE, "corpus", harness)
    os.makedirs(out, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
    print(f"{harness}: {len(seeds)} seeds in {os.path.relpath(out)}")


if __name__ == "__main__":
    write("sparse", sparse_seeds())
    write("gemm_args", gemm_seeds())
    write("matrix_market", mm_seeds())
    sys.exit(0)
