// A 64-byte aligned, uninitialised, move-only array: the storage under every sparse format
// (vectors would zero-fill hundreds of megabytes that the conversions overwrite anyway). Or,
// made by borrow(), a view of the caller's array (no alignment promised), never freed and
// never written: the CSR of a matrix made by tsr_sparse_create_csr_view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

namespace tessera::sparse {

template <typename T> class Array {
    static_assert(std::is_trivially_copyable_v<T>, "Array holds plain numbers");

public:
    Array() = default;
    explicit Array(int64_t n) : size_(n) {
        if (n <= 0) {
            size_ = 0;
            return;
        }
        // Beyond what a pointer can span, the size in bytes would wrap: refuse it as memory.
        if (uint64_t(n) > (uint64_t(PTRDIFF_MAX) - 64) / sizeof(T)) throw std::bad_alloc();
        size_t bytes = (size_t(n) * sizeof(T) + 63) & ~size_t(63);
        data_ = static_cast<T *>(std::aligned_alloc(64, bytes));
        if (!data_) throw std::bad_alloc();
    }
    Array(int64_t n, T fill) : Array(n) {
        for (int64_t i = 0; i < size_; ++i) data_[i] = fill;
    }
    Array(const Array &) = delete;
    Array &operator=(const Array &) = delete;
    // The caller's n elements at p, used in place; they must outlive the array.
    static Array borrow(const T *p, int64_t n) {
        Array a;
        a.data_ = const_cast<T *>(p); // never written through: see borrowed()
        a.size_ = p ? n : 0;
        a.owned_ = false;
        return a;
    }
    Array(Array &&o) noexcept
        : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)),
          owned_(std::exchange(o.owned_, true)) {}
    Array &operator=(Array &&o) noexcept {
        if (this != &o) {
            if (owned_) std::free(data_);
            data_ = std::exchange(o.data_, nullptr);
            size_ = std::exchange(o.size_, 0);
            owned_ = std::exchange(o.owned_, true);
        }
        return *this;
    }
    ~Array() {
        if (owned_) std::free(data_);
    }
    bool borrowed() const { return !owned_; }

    T *data() { return data_; }
    const T *data() const { return data_; }
    int64_t size() const { return size_; }
    size_t bytes() const { return size_t(size_) * sizeof(T); }
    T &operator[](int64_t i) { return data_[i]; }
    const T &operator[](int64_t i) const { return data_[i]; }

private:
    T *data_ = nullptr;
    int64_t size_ = 0;
    bool owned_ = true;
};

} // namespace tessera::sparse
