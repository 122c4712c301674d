! Tessera example: the Fortran module `tessera` (bindings/fortran/tessera.f90) — a handle,
! gemm on whole arrays, a sparse matrix from 1-based CSR arrays, spmv, and stat=/errmsg= errors.
program module_example
  use, intrinsic :: iso_fortran_env, only: real64
  use tessera
  implicit none
  integer, parameter :: n = 5
  type(tessera_handle) :: h
  type(tessera_sparse) :: lap
  real(real64) :: a(n, 3), b(3, n), c(n, n), x(n), y(n)
  integer :: i, j, stat, backend
  integer :: row_ptr(n + 1), col_idx(3 * n - 2)
  real(real64) :: values(3 * n - 2)
  character(len=200) :: msg
  logical :: ok = .true.

  print '(a,a)', 'Tessera ', tessera_version()
  call tessera_create(h, backend=TSR_BACKEND_CPU, num_threads=2)
  call tessera_get_backend(h, backend)
  print '(a,i0,a)', 'handle backend: ', backend, ' (0 auto, 1 cpu, 2 cuda, 3 reference)'

  ! Dense: C = A*B, sizes taken from the arrays.
  do j = 1, 3
     do i = 1, n
        a(i, j) = i + j
        b(j, i) = i - j
     end do
  end do
  call tessera_gemm('N', 'N', 1.0d0, a, b, 0.0d0, c, handle=h)
  ok = ok .and. all(abs(c - matmul(a, b)) <= 1.0d-12)
  print '(a)', 'gemm: C = A*B'
  do i = 1, n
     print '(5f8.1)', c(i, :)
  end do

  ! Sparse: the 1-D Laplacian (2 on the diagonal, -1 beside it) in 1-based CSR.
  row_ptr(1) = 1
  j = 0
  do i = 1, n
     if (i > 1) call push(i - 1, -1.0d0)
     call push(i, 2.0d0)
     if (i < n) call push(i + 1, -1.0d0)
     row_ptr(i + 1) = j + 1
  end do
  call tessera_sparse_csr(lap, n, n, row_ptr, col_idx(:j), values(:j), handle=h)
  call tessera_sparse_optimize(lap, TSR_FORMAT_AUTO, handle=h)
  print '(a,i0,a)', 'sparse format chosen: ', tessera_sparse_format(lap), &
       ' (1 CSR, 2 COO, 3 ELL, 4 DIA, 5 HYB)'
  x = [(real(i, real64)**2, i = 1, n)]
  call tessera_spmv('N', 1.0d0, lap, x, 0.0d0, y, handle=h)
  print '(a,5f8.1)', 'spmv: y = L*x =', y
  ok = ok .and. all(abs(y - [-2.0d0, -2.0d0, -2.0d0, -2.0d0, 34.0d0]) <= 1.0d-12)

  ! Errors: with stat= the call reports instead of stopping the program.
  call tessera_spmv('N', 1.0d0, lap, x(1:3), 0.0d0, y, stat=stat, errmsg=msg)
  print '(a,i0,a,a)', 'deliberate error: stat = ', stat, ': ', trim(msg)
  ok = ok .and. stat == TSR_ERR_INVALID_ARGUMENT

  call tessera_sparse_destroy(lap)
  call tessera_destroy(h)
  if (.not. ok) then
     print '(a)', 'FAILED'
     stop 1
  end if
  print '(a)', 'all results are right'

contains

  subroutine push(col, value)
    integer, intent(in) :: col
    real(real64), intent(in) :: value
    j = j + 1
    col_idx(j) = col
    values(j) = value
  end subroutine push

end program module_example
