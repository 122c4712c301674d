! Test of the Fortran module `tessera`: handles, gemm on real32/real64 arrays (against matmul),
! sparse matrices from CSR and COO in every format and from each typed variant, spmv, spmm, and the
! stat=/errmsg= error paths.
program test_tessera_module
  use, intrinsic :: iso_fortran_env, only: real32, real64, int32, int64
  use, intrinsic :: iso_c_binding, only: c_int, c_loc, c_null_ptr
  use tessera
  implicit none
  integer :: checks = 0, failures = 0

  call test_version_and_backends()
  call test_handles()
  call test_gemm_real32()
  call test_gemm_real64()
  call test_gemm_sections()
  call test_gemm_errors()
  call test_sparse_csr()
  call test_sparse_coo_and_formats()
  call test_sparse_every_variant()
  call test_sparse_errors()
  call test_gemm_plan()

  print '(a,i0,a,i0,a)', 'test_tessera_module: ', checks - failures, ' of ', checks, ' checks passed'
  if (failures /= 0) error stop 1

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    checks = checks + 1
    if (.not. ok) then
       failures = failures + 1
       print '(a)', 'FAILED: ' // what
    end if
  end subroutine expect

  !> Componentwise: |got - want| <= 4 (k + 2) u scale.
  logical function close32(got, want, scale, k)
    real(real32), intent(in) :: got(:, :)
    real(real64), intent(in) :: want(:, :), scale(:, :)
    integer, intent(in) :: k
    close32 = all(abs(real(got, real64) - want) <= 4 * (k + 2) * epsilon(1.0_real32) / 2 * scale &
         + tiny(1.0_real32))
  end function close32

  logical function close64(got, want, scale, k)
    real(real64), intent(in) :: got(:, :), want(:, :), scale(:, :)
    integer, intent(in) :: k
    close64 = all(abs(got - want) <= 4 * (k + 2) * epsilon(1.0_real64) / 2 * scale &
         + tiny(1.0_real64))
  end function close64

  subroutine fill(x, seed)
    real(real64), intent(out) :: x(:, :)
    integer, intent(in) :: seed
    integer :: i, j
    do j = 1, size(x, 2)
       do i = 1, size(x, 1)
          x(i, j) = real(mod(i * 7 + j * 13 + seed * 5, 23) - 11, real64) / 8
       end do
    end do
  end subroutine fill

  subroutine test_version_and_backends()
    call expect(len(tessera_version()) >= 5, 'tessera_version gives "x.y.z"')
    call expect(tessera_backend_available(TSR_BACKEND_CPU), 'the CPU backend is available')
    call expect(tessera_backend_available(TSR_BACKEND_REFERENCE), 'the reference backend is available')
    call expect(tessera_status_string(TSR_ERR_INVALID_ARGUMENT) == 'invalid argument', &
         'tessera_status_string')
  end subroutine test_version_and_backends

  subroutine test_handles()
    type(tessera_handle) :: h
    integer :: backend, stat
    integer(c_int), target :: ids(1) = [0_c_int]
    character(len=256) :: msg
    call tessera_create(h, backend=TSR_BACKEND_REFERENCE, num_threads=2)
    call tessera_get_backend(h, backend)
    call expect(backend == TSR_BACKEND_REFERENCE, 'a handle made with backend=reference')
    call tessera_set_backend(h, TSR_BACKEND_CPU)
    call tessera_get_backend(h, backend)
    call expect(backend == TSR_BACKEND_CPU, 'tessera_set_backend(cpu)')
    call tessera_set_num_threads(h, 0, stat=stat, errmsg=msg)
    call expect(stat == TSR_ERR_INVALID_ARGUMENT, 'num_threads = 0 is refused')
    call expect(index(msg, 'num_threads') > 0, 'the message names num_threads: ' // trim(msg))
    call tessera_set_strassen(h, 1, min_block=64_int64, stat=stat)
    call expect(stat == TSR_SUCCESS, 'tessera_set_strassen(1, 64)')
    call tessera_set_strassen(h, 0, stat=stat)
    call expect(stat == TSR_SUCCESS, 'tessera_set_strassen(0)')
    call tessera_set_strassen(h, 3, stat=stat, errmsg=msg)
    call expect(stat == TSR_ERR_INVALID_ARGUMENT, 'Strassen levels = 3 is refused')
    if (.not. tessera_backend_available(TSR_BACKEND_CUDA)) then
       msg = ''
       call tessera_set_backend(h, TSR_BACKEND_CUDA, stat=stat, errmsg=msg)
       call expect(stat == TSR_ERR_BACKEND_UNAVAILABLE, 'cuda is unavailable here')
       call expect(index(msg, 'cuda') > 0, 'the reason is given: ' // trim(msg))
       call tessera_get_backend(h, backend)
       call expect(backend == TSR_BACKEND_CPU, 'the backend is kept after a refusal')
       call expect(tsr_set_cuda_devices(h%ptr, 1_c_int, c_loc(ids)) == TSR_ERR_BACKEND_UNAVAILABLE, &
            'tsr_set_cuda_devices without cuda is refused')
    end if
    call expect(tsr_set_cuda_devices(h%ptr, -1_c_int, c_null_ptr) == TSR_ERR_INVALID_ARGUMENT, &
         'tsr_set_cuda_devices with count -1 is refused')
    call tessera_destroy(h)
    call expect(.not. c_associated_handle(h), 'tessera_destroy resets the handle')
    call tessera_destroy(h, stat=stat)
    call expect(stat == TSR_SUCCESS, 'destroying an unset handle does nothing')
    call tessera_get_backend(h, backend, stat=stat)
    call expect(stat == TSR_ERR_INVALID_ARGUMENT, 'an unset handle is refused where one is needed')
  end subroutine test_handles

  logical function c_associated_handle(h)
    use, intrinsic :: iso_c_binding, only: c_associated
    type(tessera_handle), intent(in) :: h
    c_associated_handle = c_associated(h%ptr)
  end function c_associated_handle

  subroutine test_gemm_real32()
    integer, parameter :: m = 37, n = 19, k = 23
    real(real64) :: a(m, k), b(k, n), c0(m, n), want(m, n), scale(m, n)
    real(real32) :: a32(m, k), b32(k, n), c32(m, n), at32(k, m), bt32(n, k)
    type(tessera_handle) :: h
    call fill(a, 1)
    call fill(b, 2)
    call fill(c0, 3)
    a32 = real(a, real32)
    b32 = real(b, real32)
    at32 = transpose(a32)
    bt32 = transpose(b32)
    want = 1.5d0 * matmul(real(a32, real64), real(b32, real64)) - 0.5d0 * real(real(c0, real32), real64)
    scale = 1.5d0 * matmul(abs(real(a32, real64)), abs(real(b32, real64))) + 0.5d0 * abs(c0)

    c32 = real(c0, real32)
    call tessera_gemm('N', 'N', 1.5, a32, b32, -0.5, c32)
    call expect(close32(c32, want, scale, k), 'sgemm NN on the default handle')
    c32 = real(c0, real32)
    call tessera_gemm('T', 'n', 1.5, at32, b32, -0.5, c32)
    call expect(close32(c32, want, scale, k), 'sgemm TN')
    c32 = real(c0, real32)
    call tessera_gemm('n', 'T', 1.5, a32, bt32, -0.5, c32)
    call expect(close32(c32, want, scale, k), 'sgemm NT')
    call tessera_create(h, backend=TSR_BACKEND_REFERENCE)
    c32 = real(c0, real32)
    call tessera_gemm('C', 'C', 1.5, at32, bt32, -0.5, c32, handle=h)
    call expect(close32(c32, want, scale, k), 'sgemm CC on a reference handle')
    call tessera_destroy(h)
  end subroutine test_gemm_real32

  subroutine test_gemm_real64()
    integer, parameter :: m = 64, n = 65, k = 63
    real(real64) :: a(m, k), b(k, n), c(m, n), c0(m, n), want(m, n), scale(m, n)
    type(tessera_handle) :: h
    integer :: stat
    call fill(a, 4)
    call fill(b, 5)
    call fill(c0, 6)
    call tessera_create(h, backend=TSR_BACKEND_CPU, num_threads=2)
    c = c0
    call tessera_gemm('N', 'N', 2.0d0, a, b, 1.0d0, c, handle=h, stat=stat)
    want = 2 * matmul(a, b) + c0
    scale = 2 * matmul(abs(a), abs(b)) + abs(c0)
    call expect(stat == TSR_SUCCESS .and. close64(c, want, scale, k), 'dgemm NN on a cpu handle')
    c = c0
    call tessera_gemm('T', 'T', 1.0d0, transpose(a), transpose(b), 0.0d0, c, handle=h)
    call expect(close64(c, matmul(a, b), matmul(abs(a), abs(b)), k), 'dgemm TT with beta = 0')
    call tessera_destroy(h)
  end subroutine test_gemm_real64

  subroutine test_gemm_sections()
    ! Non-contiguous sections are passed through the compiler's copy-in/copy-out.
    real(real64) :: big(20, 20), a(6, 4), b(4, 5), want(6, 5)
    call fill(a, 7)
    call fill(b, 8)
    big = 3
    call tessera_gemm('N', 'N', 1.0d0, a, b, 0.0d0, big(2:12:2, 3:7))
    want = matmul(a, b)
    call expect(close64(big(2:12:2, 3:7), want, matmul(abs(a), abs(b)), 4), &
         'dgemm into a strided section')
    call expect(all(big(3:11:2, :) == 3) .and. all(big(:, 1:2) == 3), &
         'entries outside the section are untouched')
  end subroutine test_gemm_sections

  subroutine test_gemm_errors()
    real(real32) :: a(3, 4), b(5, 2), c(3, 2)
    integer :: stat
    character(len=256) :: msg
    a = 1
    b = 1
    c = 7
    call tessera_gemm('N', 'N', 1.0, a, b, 0.0, c, stat=stat, errmsg=msg)
    call expect(stat == TSR_ERR_INVALID_ARGUMENT, 'mismatched shapes are refused')
    call expect(index(msg, 'shapes do not match') > 0, 'and said so: ' // trim(msg))
    call expect(all(c == 7), 'C is untouched after a refusal')
    call tessera_gemm('X', 'N', 1.0, a, b, 0.0, c, stat=stat, errmsg=msg)
    call expect(stat == TSR_ERR_INVALID_ARGUMENT .and. index(msg, "'X'") > 0, &
         'a bad transpose letter is refused: ' // trim(msg))
  end subroutine test_gemm_errors

  subroutine test_sparse_csr()
    ! A = [1 0 2; 0 0 0; 3 4 0] in 1-based CSR, int32 indices, both precisions.
    integer(int32), parameter :: row_ptr(4) = [1, 3, 3, 5], col_idx(4) = [1, 3, 1, 2]
    real(real64), parameter :: values(4) = [1, 2, 3, 4]
    real(real64), parameter :: x(3) = [1, 10, 100]
    type(tessera_sparse) :: A, B
    real(real64) :: y(3), xx(3, 2), yy(3, 2)
    real(real32) :: y32(3)
    integer :: stat
    call tessera_sparse_csr(A, 3, 3, row_ptr, col_idx, values)
    call expect(tessera_sparse_format(A) == TSR_FORMAT_CSR, 'a new matrix is CSR')
    y = -1
    call tessera_spmv('N', 1.0d0, A, x, 0.0d0, y)
    call expect(all(y == [201.0d0, 0.0d0, 43.0d0]), 'dspmv N with 1-based CSR')
    y = 1
    call tessera_spmv('T', 2.0d0, A, x, 1.0d0, y)
    call expect(all(y == [603.0d0, 801.0d0, 5.0d0]), 'dspmv T with alpha and beta')
    ! Blocks: two columns of X at once, then A^T with alpha and beta, then a refusal.
    xx(:, 1) = x
    xx(:, 2) = -2 * x
    yy = -1
    call tessera_spmm('N', 1.0d0, A, xx, 0.0d0, yy)
    call expect(all(yy(:, 1) == [201.0d0, 0.0d0, 43.0d0]) .and. &
         all(yy(:, 2) == [-402.0d0, 0.0d0, -86.0d0]), 'dspmm N on two columns')
    yy = 1
    call tessera_spmm('T', 2.0d0, A, xx, 1.0d0, yy)
    call expect(all(yy(:, 1) == [603.0d0, 801.0d0, 5.0d0]), 'dspmm T with alpha and beta')
    call tessera_spmm('N', 1.0d0, A, xx, 0.0d0, yy(:, 1:1), stat=stat)
    call expect(stat == TSR_ERR_INVALID_ARGUMENT, 'spmm refuses X and Y of different widths')
    call tessera_sparse_destroy(A)
    call expect(tessera_sparse_format(A) == -1, 'tessera_sparse_destroy resets the matrix')

    call tessera_sparse_csr(B, 3, 3, int(row_ptr - 1, int64), int(col_idx - 1, int64), &
         real(values, real32), index_base=0)
    y32 = 0
    call tessera_spmv('N', 1.0, B, real(x, real32), 0.0, y32)
    call expect(all(y32 == [201.0, 0.0, 43.0]), 'sspmv with 0-based int64 CSR')
    call tessera_sparse_destroy(B)
  end subroutine test_sparse_csr

  subroutine test_sparse_coo_and_formats()
    ! A tridiagonal n x n matrix from coordinates, in every format the library offers for it.
    integer, parameter :: n = 200
    integer(int32) :: rows(3 * n - 2), cols(3 * n - 2)
    real(real64) :: values(3 * n - 2), x(n), y(n), want(n)
    integer :: i, p, f, stat
    integer, parameter :: formats(6) = [TSR_FORMAT_AUTO, TSR_FORMAT_CSR, TSR_FORMAT_COO, &
         TSR_FORMAT_ELL, TSR_FORMAT_DIA, TSR_FORMAT_HYB]
    type(tessera_sparse) :: A
    type(tessera_handle) :: h
    p = 0
    do i = 1, n
       p = p + 1
       rows(p) = i
       cols(p) = i
       values(p) = 2
       if (i > 1) then
          p = p + 1
          rows(p) = i
          cols(p) = i - 1
          values(p) = -1
       end if
       if (i < n) then
          p = p + 1
          rows(p) = i
          cols(p) = i + 1
          values(p) = -1
       end if
    end do
    do i = 1, n
       x(i) = real(i, real64)**2
    end do
    want = 2 * x
    want(2:n) = want(2:n) - x(1:n - 1)
    want(1:n - 1) = want(1:n - 1) - x(2:n)
    call tessera_create(h, backend=TSR_BACKEND_CPU)
    call tessera_sparse_coo(A, n, n, rows(n:1:-1), cols(n:1:-1), values(n:1:-1), handle=h)
    call tessera_sparse_destroy(A)
    call tessera_sparse_coo(A, n, n, rows, cols, values, handle=h)
    do i = 1, size(formats)
       call tessera_sparse_optimize(A, formats(i), handle=h, stat=stat)
       f = tessera_sparse_format(A)
       call expect(stat == TSR_SUCCESS, 'tessera_sparse_optimize to each format')
       call expect(f /= TSR_FORMAT_AUTO .and. (formats(i) == TSR_FORMAT_AUTO .or. f == formats(i)), &
            'the format is the one asked for')
       y = 0
       call tessera_spmv('N', 1.0d0, A, x, 0.0d0, y, handle=h)
       call expect(all(abs(y - want) <= 1.0d-12 * abs(want) + 1.0d-12), 'spmv in each format')
    end do
    call tessera_sparse_destroy(A)
    call tessera_destroy(h)
  end subroutine test_sparse_coo_and_formats

  !> Each of the eight specific procedures of tessera_sparse_csr and tessera_sparse_coo
  !> (real32/real64 values, int32/int64 indices), called with its keywords, from 0-based and
  !> 1-based arrays: A = [1 0 2; 0 0 0; 3 4 0].
  subroutine test_sparse_every_variant()
    integer(int32), parameter :: ptr(4) = [1, 3, 3, 5], row(4) = [1, 1, 3, 3], col(4) = [1, 3, 1, 2]
    real(real64), parameter :: values(4) = [1, 2, 3, 4]
    type(tessera_sparse) :: A
    integer :: b
    do b = 0, 1
       call tessera_sparse_csr(A, 3, 3, row_ptr=ptr - 1 + b, col_idx=col - 1 + b, &
            values=real(values, real32), index_base=b)
       call check_variant(A, TSR_F32, 'csr real32 int32', b)
       call tessera_sparse_csr(A, 3, 3, row_ptr=int(ptr - 1 + b, int64), &
            col_idx=int(col - 1 + b, int64), values=real(values, real32), index_base=b)
       call check_variant(A, TSR_F32, 'csr real32 int64', b)
       call tessera_sparse_csr(A, 3, 3, row_ptr=ptr - 1 + b, col_idx=col - 1 + b, &
            values=values, index_base=b)
       call check_variant(A, TSR_F64, 'csr real64 int32', b)
       call tessera_sparse_csr(A, 3, 3, row_ptr=int(ptr - 1 + b, int64), &
            col_idx=int(col - 1 + b, int64), values=values, index_base=b)
       call check_variant(A, TSR_F64, 'csr real64 int64', b)
       call tessera_sparse_coo(A, 3, 3, row_idx=row - 1 + b, col_idx=col - 1 + b, &
            values=real(values, real32), index_base=b)
       call check_variant(A, TSR_F32, 'coo real32 int32', b)
       call tessera_sparse_coo(A, 3, 3, row_idx=int(row - 1 + b, int64), &
            col_idx=int(col - 1 + b, int64), values=real(values, real32), index_base=b)
       call check_variant(A, TSR_F32, 'coo real32 int64', b)
       call tessera_sparse_coo(A, 3, 3, row_idx=row - 1 + b, col_idx=col - 1 + b, &
            values=values, index_base=b)
       call check_variant(A, TSR_F64, 'coo real64 int32', b)
       call tessera_sparse_coo(A, 3, 3, row_idx=int(row - 1 + b, int64), &
            col_idx=int(col - 1 + b, int64), values=values, index_base=b)
       call check_variant(A, TSR_F64, 'coo real64 int64', b)
    end do
  end subroutine test_sparse_every_variant

  !> A's type and A*[1, 10, 100] = [201, 0, 43], then A is destroyed.
  subroutine check_variant(A, dtype, what, base)
    type(tessera_sparse), intent(inout) :: A
    integer, intent(in) :: dtype, base
    character(len=*), intent(in) :: what
    real(real64), parameter :: x(3) = [1, 10, 100], want(3) = [201, 0, 43]
    real(real32) :: y32(3)
    real(real64) :: y64(3)
    character(len=80) :: name
    integer :: stat
    write (name, '(a,a,i0)') what, ', index_base = ', base
    call expect(A%dtype == dtype, trim(name) // ': the matrix has the values'' type')
    stat = -1
    if (dtype == TSR_F32) then
       y32 = -1
       call tessera_spmv('N', 1.0, A, real(x, real32), 0.0, y32, stat=stat)
       call expect(stat == TSR_SUCCESS .and. all(y32 == real(want, real32)), trim(name) // ': spmv')
    else
       y64 = -1
       call tessera_spmv('N', 1.0d0, A, x, 0.0d0, y64, stat=stat)
       call expect(stat == TSR_SUCCESS .and. all(y64 == want), trim(name) // ': spmv')
    end if
    call tessera_sparse_destroy(A)
  end subroutine check_variant

  subroutine test_sparse_errors()
    type(tessera_sparse) :: A
    integer :: stat
    character(len=256) :: msg
    real(real64) :: y(2)
    real(real32) :: y32(2)
    msg = ''
    call tessera_sparse_csr(A, 2, 2, [1, 2], [1], [1.0d0], stat=stat, errmsg=msg)
    call expect(stat == TSR_ERR_INVALID_ARGUMENT .and. index(msg, 'row_ptr has 2 entries') > 0, &
         'a short row_ptr is refused before the library: ' // trim(msg))
    call tessera_sparse_coo(A, 2, 2, [1, 2], [1, 3], [1.0d0, 2.0d0], stat=stat, errmsg=msg)
    call expect(stat == TSR_ERR_INVALID_ARGUMENT, 'a column outside the matrix is refused')
    call expect(index(msg, 'tessera_sparse_coo: invalid argument: ') == 1, &
         'with the library''s message: ' // trim(msg))
    call tessera_sparse_coo(A, 2, 2, [1, 2], [1, 2], [1.0d0, 2.0d0])
    call tessera_spmv('N', 1.0d0, A, [1.0d0, 1.0d0, 1.0d0], 0.0d0, y, stat=stat, errmsg=msg)
    call expect(stat == TSR_ERR_INVALID_ARGUMENT .and. index(msg, 'size(x) = 3') > 0, &
         'a vector of the wrong length is refused: ' // trim(msg))
    call tessera_spmv('N', 1.0, A, [1.0, 1.0], 0.0, y32, stat=stat, errmsg=msg)
    call expect(stat == TSR_ERR_INVALID_ARGUMENT .and. index(msg, 'kinds') > 0, &
         'real32 vectors with a real64 matrix are refused: ' // trim(msg))
    call tessera_sparse_optimize(A, 42, stat=stat, errmsg=msg)
    call expect(stat == TSR_ERR_INVALID_ARGUMENT, 'an unknown format is refused')
    call tessera_sparse_destroy(A)
  end subroutine test_sparse_errors

  !> A plan made once, run on one product and on a strided batch of three, against matmul.
  subroutine test_gemm_plan()
    use, intrinsic :: iso_c_binding, only: c_ptr, c_loc, c_null_ptr, c_int, c_int64_t, c_funptr, &
         c_null_funptr, c_f_procpointer, c_associated
    real(real64), target :: a(5, 4, 3), b(4, 6), c(5, 6, 3)
    real(real64) :: want(5, 6), scale(5, 6)
    type(c_ptr) :: plan
    type(c_funptr) :: kernel
    procedure(tsr_dgemm_kernel), pointer :: run
    integer(c_int) :: status
    integer :: i
    call fill(a(:, :, 1), 1)
    call fill(a(:, :, 2), 2)
    call fill(a(:, :, 3), 3)
    call fill(b, 4)
    c = -1
    status = tsr_gemm_plan_create(c_null_ptr, plan, TSR_F64, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, &
         5_c_int64_t, 6_c_int64_t, 4_c_int64_t, 5_c_int64_t, 4_c_int64_t, 5_c_int64_t)
    call expect(status == TSR_SUCCESS, 'tsr_gemm_plan_create')
    status = tsr_gemm_plan_execute(plan, 2.0d0, c_loc(a), c_loc(b), 0.0d0, c_loc(c))
    call expect(status == TSR_SUCCESS, 'tsr_gemm_plan_execute')
    want = 2 * matmul(a(:, :, 1), b)
    scale = 2 * matmul(abs(a(:, :, 1)), abs(b))
    call expect(close64(c(:, :, 1), want, scale, 4), 'plan: one product')
    call expect(all(c(:, :, 2:3) == -1), 'plan: one product writes one C')
    ! three products, B shared (stride 0), C(:,:,i) = A(:,:,i) B + C(:,:,i)
    c(:, :, 1) = 0
    status = tsr_gemm_plan_execute_strided(plan, 3_c_int64_t, 1.0d0, c_loc(a), 20_c_int64_t, c_loc(b), &
         0_c_int64_t, 1.0d0, c_loc(c), 30_c_int64_t)
    call expect(status == TSR_SUCCESS, 'tsr_gemm_plan_execute_strided')
    do i = 1, 3
       want = matmul(a(:, :, i), b)
       if (i > 1) want = want - 1
       scale = matmul(abs(a(:, :, i)), abs(b)) + 1
       call expect(close64(c(:, :, i), want, scale, 4), 'plan: strided product')
    end do
    ! a negative count is refused
    status = tsr_gemm_plan_execute_strided(plan, -1_c_int64_t, 1.0d0, c_loc(a), 0_c_int64_t, c_loc(b), &
         0_c_int64_t, 0.0d0, c_loc(c), 30_c_int64_t)
    call expect(status == TSR_ERR_INVALID_ARGUMENT, 'plan: negative count refused')
    ! the bare kernel: the same product as execute, bit for bit, where the CPU has one (an
    ! x86-64 CPU with AVX2 or AVX-512); otherwise refused with nothing written
    kernel = c_null_funptr
    status = tsr_gemm_plan_dgemm_kernel(plan, kernel)
    if (status == TSR_SUCCESS) then
       call c_f_procpointer(kernel, run)
       c = -1
       call run(plan, 0.5d0, c_loc(a(1, 1, 2)), c_loc(b), 2.0d0, c_loc(c(1, 1, 2)))
       status = tsr_gemm_plan_execute(plan, 0.5d0, c_loc(a(1, 1, 2)), c_loc(b), 2.0d0, c_loc(c(1, 1, 3)))
       call expect(status == TSR_SUCCESS, 'plan: execute beside the kernel')
       want = 0.5d0 * matmul(a(:, :, 2), b) - 2
       scale = 0.5d0 * matmul(abs(a(:, :, 2)), abs(b)) + 2
       call expect(close64(c(:, :, 2), want, scale, 4), 'plan: bare kernel product')
       call expect(all(c(:, :, 2) == c(:, :, 3)), 'plan: bare kernel equals execute')
       call expect(all(c(:, :, 1) == -1), 'plan: bare kernel writes one C')
    else
       call expect(status == TSR_ERR_NOT_SUPPORTED, 'plan: no bare kernel is NOT_SUPPORTED')
       call expect(.not. c_associated(kernel), 'plan: refused kernel left unwritten')
    end if
    call expect(tsr_gemm_plan_sgemm_kernel(plan, kernel) == TSR_ERR_INVALID_ARGUMENT, &
         'plan: the other dtype''s kernel refused')
    call expect(tsr_gemm_plan_destroy(plan) == TSR_SUCCESS, 'tsr_gemm_plan_destroy')
  end subroutine test_gemm_plan

end program test_tessera_module
