// A 64-byte aligned, uninitialised, move-only array: the storage under every sparse format
// (vectors would zero-fill hundreds of megabytes that the conversions overwrite anyway).
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
    Array(Array &&o) noexcept
        : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
    Array &operator=(Array &&o) noexcept {
        if (this != &o) {
            std::free(data_);
            data_ = std::exchange(o.data_, nullptr);
            size_ = std::exchange(o.size_, 0);
        }
        return *this;
    }
    ~Array() { std::free(data_); }

    T *data() { return data_; }
    const T *data() const { return data_; }
    int64_t size() const { return size_; }
    size_t bytes() const { return size_t(size_) * sizeof(T); }
    T &operator[](int64_t i) { return data_[i]; }
    const T &operator[](int64_t i) const { return data_[i]; }

private:
    T *data_ = nullptr;
    int64_t size_ = 0;
};

} // namespace tessera::sparse
