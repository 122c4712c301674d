// The portable gemv kernels: the loops of gemv_simd.hpp over a small array "vector" that the
// compiler maps to whatever SIMD the build targets, for any CPU.
#include "cpu/gemv_kernels.hpp"
#include "cpu/gemv_simd.hpp"

namespace tessera::cpu {

namespace {

// a·b + c, fused where the build's instruction set has FMA.
template <typename T> inline T madd(T a, T b, T c) {
#if defined(__FMA__)
    return __builtin_fma(a, b, c);
#else
    return a * b + c;
#endif
}

template <typename E> struct PortableVec {
    using T = E;
    static constexpr int lanes = int(32 / sizeof(E));
    struct Vec {
        T v[lanes];
    };
    static Vec zero() { return Vec{}; }
    static Vec loadu(const T *p) {
        Vec r;
        for (int l = 0; l < lanes; ++l) r.v[l] = p[l];
        return r;
    }
    static void storeu(T *p, Vec a) {
        for (int l = 0; l < lanes; ++l) p[l] = a.v[l];
    }
    static Vec set1(T x) {
        Vec r;
        for (int l = 0; l < lanes; ++l) r.v[l] = x;
        return r;
    }
    static Vec fma(Vec a, Vec b, Vec c) {
        for (int l = 0; l < lanes; ++l) c.v[l] = madd(a.v[l], b.v[l], c.v[l]);
        return c;
    }
    using Mask = int; // the first n lanes
    static Mask mask(int n) { return n; }
    static Vec maskload(const T *p, Mask n) {
        Vec r{};
        for (int l = 0; l < n; ++l) r.v[l] = p[l];
        return r;
    }
    static void maskstore(T *p, Mask n, Vec a) {
        for (int l = 0; l < n; ++l) p[l] = a.v[l];
    }
};

} // namespace

const GemvKernels<float> &gemv_generic_f32() {
    static const GemvKernels<float> k{"generic", gemv_n<PortableVec<float>>,
                                      gemv_t<PortableVec<float>>};
    return k;
}

const GemvKernels<double> &gemv_generic_f64() {
    static const GemvKernels<double> k{"generic", gemv_n<PortableVec<double>>,
                                       gemv_t<PortableVec<double>>};
    return k;
}

} // namespace tessera::cpu
