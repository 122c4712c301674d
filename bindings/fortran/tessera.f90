! Fortran module `tessera`: iso_c_binding interfaces to every tsr_* function of tessera.h, and
! thin wrappers (handles, gemm on 2-D arrays, sparse matrices, spmv and spmm) with stat=/errmsg= errors.
module tessera
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: real32, real64, int32, int64, error_unit
  implicit none
  private

  ! ---- Constants of tessera.h ------------------------------------------------------------
  ! tsr_status
  integer(c_int), parameter, public :: TSR_SUCCESS = 0, TSR_ERR_INVALID_ARGUMENT = 1, &
       TSR_ERR_BACKEND_UNAVAILABLE = 2, TSR_ERR_OUT_OF_MEMORY = 3, TSR_ERR_DEVICE = 4, &
       TSR_ERR_NOT_SUPPORTED = 5, TSR_ERR_INTERNAL = 6
  ! tsr_backend
  integer(c_int), parameter, public :: TSR_BACKEND_AUTO = 0, TSR_BACKEND_CPU = 1, &
       TSR_BACKEND_CUDA = 2, TSR_BACKEND_REFERENCE = 3
  ! tsr_layout and tsr_op (the CBLAS values)
  integer(c_int), parameter, public :: TSR_ROW_MAJOR = 101, TSR_COL_MAJOR = 102
  integer(c_int), parameter, public :: TSR_OP_N = 111, TSR_OP_T = 112, TSR_OP_C = 113
  ! tsr_dtype and tsr_index_type
  integer(c_int), parameter, public :: TSR_F32 = 0, TSR_F64 = 1
  integer(c_int), parameter, public :: TSR_INDEX_I32 = 0, TSR_INDEX_I64 = 1
  ! tsr_format
  integer(c_int), parameter, public :: TSR_FORMAT_AUTO = 0, TSR_FORMAT_CSR = 1, &
       TSR_FORMAT_COO = 2, TSR_FORMAT_ELL = 3, TSR_FORMAT_DIA = 4, TSR_FORMAT_HYB = 5

  ! ---- Wrapper types -----------------------------------------------------------------------
  !> A library handle (tsr_handle). An unset handle (ptr null) means the default handle.
  type, public :: tessera_handle
     type(c_ptr) :: ptr = c_null_ptr
  end type tessera_handle

  !> A sparse matrix held by the library (tsr_sparse), with its type and shape.
  type, public :: tessera_sparse
     type(c_ptr) :: ptr = c_null_ptr
     integer(c_int) :: dtype = -1
     integer(int64) :: rows = 0, cols = 0
  end type tessera_sparse

  ! ---- The C API, as it is (for users who want it raw) -------------------------------------
  public :: tsr_version, tsr_status_string, tsr_last_error, tsr_create, tsr_destroy, &
       tsr_set_backend, tsr_get_backend, tsr_backend_available, tsr_set_num_threads, &
       tsr_set_cuda_stream, tsr_set_cuda_devices, tsr_set_strassen, tsr_sgemm, tsr_dgemm, &
       tsr_sparse_create_csr, tsr_sparse_create_coo, &
       tsr_sparse_optimize, tsr_sparse_get_format, tsr_sparse_destroy, tsr_sspmv, tsr_dspmv, &
       tsr_gemm_plan_create, tsr_gemm_plan_execute, tsr_gemm_plan_execute_strided, tsr_gemm_plan_destroy, &
       tsr_gemm_plan_sgemm_kernel, tsr_gemm_plan_dgemm_kernel, tsr_sgemm_kernel, tsr_dgemm_kernel

  ! A plan's bare kernel (tsr_gemm_plan_?gemm_kernel): get it as a c_funptr, turn it into a
  ! procedure pointer with c_f_procpointer, and call it with the plan and c_loc of the arrays.
  abstract interface
     subroutine tsr_sgemm_kernel(plan, alpha, a, b, beta, c) bind(C)
       import :: c_ptr, c_float
       type(c_ptr), value :: plan, a, b, c
       real(c_float), value :: alpha, beta
     end subroutine tsr_sgemm_kernel

     subroutine tsr_dgemm_kernel(plan, alpha, a, b, beta, c) bind(C)
       import :: c_ptr, c_double
       type(c_ptr), value :: plan, a, b, c
       real(c_double), value :: alpha, beta
     end subroutine tsr_dgemm_kernel
  end interface

  interface
     function tsr_version() bind(C, name="tsr_version") result(text)
       import :: c_ptr
       type(c_ptr) :: text
     end function tsr_version

     function tsr_status_string(status) bind(C, name="tsr_status_string") result(text)
       import :: c_ptr, c_int
       integer(c_int), value :: status
       type(c_ptr) :: text
     end function tsr_status_string

     function tsr_last_error() bind(C, name="tsr_last_error") result(text)
       import :: c_ptr
       type(c_ptr) :: text
     end function tsr_last_error

     function tsr_create(handle) bind(C, name="tsr_create") result(status)
       import :: c_ptr, c_int
       type(c_ptr), intent(out) :: handle
       integer(c_int) :: status
     end function tsr_create

     function tsr_destroy(handle) bind(C, name="tsr_destroy") result(status)
       import :: c_ptr, c_int
       type(c_ptr), value :: handle
       integer(c_int) :: status
     end function tsr_destroy

     function tsr_set_backend(handle, backend) bind(C, name="tsr_set_backend") result(status)
       import :: c_ptr, c_int
       type(c_ptr), value :: handle
       integer(c_int), value :: backend
       integer(c_int) :: status
     end function tsr_set_backend

     function tsr_get_backend(handle, backend) bind(C, name="tsr_get_backend") result(status)
       import :: c_ptr, c_int
       type(c_ptr), value :: handle
       integer(c_int), intent(out) :: backend
       integer(c_int) :: status
     end function tsr_get_backend

     function tsr_backend_available(backend, available) bind(C, name="tsr_backend_available") &
          result(status)
       import :: c_int
       integer(c_int), value :: backend
       integer(c_int), intent(out) :: available
       integer(c_int) :: status
     end function tsr_backend_available

     function tsr_set_num_threads(handle, num_threads) bind(C, name="tsr_set_num_threads") &
          result(status)
       import :: c_ptr, c_int
       type(c_ptr), value :: handle
       integer(c_int), value :: num_threads
       integer(c_int) :: status
     end function tsr_set_num_threads

     function tsr_set_cuda_stream(handle, stream) bind(C, name="tsr_set_cuda_stream") &
          result(status)
       import :: c_ptr, c_int
       type(c_ptr), value :: handle, stream
       integer(c_int) :: status
     end function tsr_set_cuda_stream

     ! ids: c_loc of an integer(c_int) array of count device ordinals, or c_null_ptr with
     ! count = 0 for every GPU of the host.
     function tsr_set_cuda_devices(handle, count, ids) bind(C, name="tsr_set_cuda_devices") &
          result(status)
       import :: c_ptr, c_int
       type(c_ptr), value :: handle, ids
       integer(c_int), value :: count
       integer(c_int) :: status
     end function tsr_set_cuda_devices

     function tsr_set_strassen(handle, levels, min_block) bind(C, name="tsr_set_strassen") &
          result(status)
       import :: c_ptr, c_int, c_int64_t
       type(c_ptr), value :: handle
       integer(c_int), value :: levels
       integer(c_int64_t), value :: min_block
       integer(c_int) :: status
     end function tsr_set_strassen

     function tsr_sgemm(handle, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, &
          c, ldc) bind(C, name="tsr_sgemm") result(status)
       import :: c_ptr, c_int, c_int64_t, c_float
       type(c_ptr), value :: handle
       integer(c_int), value :: layout, transa, transb
       integer(c_int64_t), value :: m, n, k, lda, ldb, ldc
       real(c_float), value :: alpha, beta
       real(c_float), intent(in) :: a(*), b(*)
       real(c_float), intent(inout) :: c(*)
       integer(c_int) :: status
     end function tsr_sgemm

     function tsr_dgemm(handle, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, &
          c, ldc) bind(C, name="tsr_dgemm") result(status)
       import :: c_ptr, c_int, c_int64_t, c_double
       type(c_ptr), value :: handle
       integer(c_int), value :: layout, transa, transb
       integer(c_int64_t), value :: m, n, k, lda, ldb, ldc
       real(c_double), value :: alpha, beta
       real(c_double), intent(in) :: a(*), b(*)
       real(c_double), intent(inout) :: c(*)
       integer(c_int) :: status
     end function tsr_dgemm

     function tsr_sparse_create_csr(handle, matrix, dtype, itype, rows, cols, nnz, row_ptr, &
          col_idx, values) bind(C, name="tsr_sparse_create_csr") result(status)
       import :: c_ptr, c_int, c_int64_t
       type(c_ptr), value :: handle
       type(c_ptr), intent(out) :: matrix
       integer(c_int), value :: dtype, itype
       integer(c_int64_t), value :: rows, cols, nnz
       type(c_ptr), value :: row_ptr, col_idx, values
       integer(c_int) :: status
     end function tsr_sparse_create_csr

     function tsr_sparse_create_coo(handle, matrix, dtype, itype, rows, cols, nnz, row_idx, &
          col_idx, values) bind(C, name="tsr_sparse_create_coo") result(status)
       import :: c_ptr, c_int, c_int64_t
       type(c_ptr), value :: handle
       type(c_ptr), intent(out) :: matrix
       integer(c_int), value :: dtype, itype
       integer(c_int64_t), value :: rows, cols, nnz
       type(c_ptr), value :: row_idx, col_idx, values
       integer(c_int) :: status
     end function tsr_sparse_create_coo

     function tsr_sparse_optimize(handle, matrix, format) bind(C, name="tsr_sparse_optimize") &
          result(status)
       import :: c_ptr, c_int
       type(c_ptr), value :: handle, matrix
       integer(c_int), value :: format
       integer(c_int) :: status
     end function tsr_sparse_optimize

     function tsr_sparse_get_format(matrix, format) bind(C, name="tsr_sparse_get_format") &
          result(status)
       import :: c_ptr, c_int
       type(c_ptr), value :: matrix
       integer(c_int), intent(out) :: format
       integer(c_int) :: status
     end function tsr_sparse_get_format

     function tsr_sparse_destroy(matrix) bind(C, name="tsr_sparse_destroy") result(status)
       import :: c_ptr, c_int
       type(c_ptr), value :: matrix
       integer(c_int) :: status
     end function tsr_sparse_destroy

     function tsr_sspmv(handle, op, alpha, a, x, beta, y) bind(C, name="tsr_sspmv") &
          result(status)
       import :: c_ptr, c_int, c_float
       type(c_ptr), value :: handle, a
       integer(c_int), value :: op
       real(c_float), value :: alpha, beta
       real(c_float), intent(in) :: x(*)
       real(c_float), intent(inout) :: y(*)
       integer(c_int) :: status
     end function tsr_sspmv

     function tsr_dspmv(handle, op, alpha, a, x, beta, y) bind(C, name="tsr_dspmv") &
          result(status)
       import :: c_ptr, c_int, c_double
       type(c_ptr), value :: handle, a
       integer(c_int), value :: op
       real(c_double), value :: alpha, beta
       real(c_double), intent(in) :: x(*)
       real(c_double), intent(inout) :: y(*)
       integer(c_int) :: status
     end function tsr_dspmv

     function tsr_sspmm(handle, layout, op, k, alpha, a, x, ldx, beta, y, ldy) &
          bind(C, name="tsr_sspmm") result(status)
       import :: c_ptr, c_int, c_float, c_int64_t
       type(c_ptr), value :: handle, a
       integer(c_int), value :: layout, op
       integer(c_int64_t), value :: k, ldx, ldy
       real(c_float), value :: alpha, beta
       real(c_float), intent(in) :: x(*)
       real(c_float), intent(inout) :: y(*)
       integer(c_int) :: status
     end function tsr_sspmm

     function tsr_dspmm(handle, layout, op, k, alpha, a, x, ldx, beta, y, ldy) &
          bind(C, name="tsr_dspmm") result(status)
       import :: c_ptr, c_int, c_double, c_int64_t
       type(c_ptr), value :: handle, a
       integer(c_int), value :: layout, op
       integer(c_int64_t), value :: k, ldx, ldy
       real(c_double), value :: alpha, beta
       real(c_double), intent(in) :: x(*)
       real(c_double), intent(inout) :: y(*)
       integer(c_int) :: status
     end function tsr_dspmm

     ! Gemm plans: the arrays are passed as c_loc(x) of real32 or real64 arrays of the plan's dtype.
     function tsr_gemm_plan_create(handle, plan, dtype, layout, transa, transb, m, n, k, lda, ldb, &
          ldc) bind(C, name="tsr_gemm_plan_create") result(status)
       import :: c_ptr, c_int, c_int64_t
       type(c_ptr), value :: handle
       type(c_ptr), intent(out) :: plan
       integer(c_int), value :: dtype, layout, transa, transb
       integer(c_int64_t), value :: m, n, k, lda, ldb, ldc
       integer(c_int) :: status
     end function tsr_gemm_plan_create

     function tsr_gemm_plan_execute(plan, alpha, a, b, beta, c) bind(C, name="tsr_gemm_plan_execute") &
          result(status)
       import :: c_ptr, c_int, c_double
       type(c_ptr), value :: plan, a, b, c
       real(c_double), value :: alpha, beta
       integer(c_int) :: status
     end function tsr_gemm_plan_execute

     function tsr_gemm_plan_execute_strided(plan, count, alpha, a, stride_a, b, stride_b, beta, c, &
          stride_c) bind(C, name="tsr_gemm_plan_execute_strided") result(status)
       import :: c_ptr, c_int, c_int64_t, c_double
       type(c_ptr), value :: plan, a, b, c
       integer(c_int64_t), value :: count, stride_a, stride_b, stride_c
       real(c_double), value :: alpha, beta
       integer(c_int) :: status
     end function tsr_gemm_plan_execute_strided

     function tsr_gemm_plan_sgemm_kernel(plan, kernel) bind(C, name="tsr_gemm_plan_sgemm_kernel") &
          result(status)
       import :: c_ptr, c_funptr, c_int
       type(c_ptr), value :: plan
       type(c_funptr), intent(out) :: kernel
       integer(c_int) :: status
     end function tsr_gemm_plan_sgemm_kernel

     function tsr_gemm_plan_dgemm_kernel(plan, kernel) bind(C, name="tsr_gemm_plan_dgemm_kernel") &
          result(status)
       import :: c_ptr, c_funptr, c_int
       type(c_ptr), value :: plan
       type(c_funptr), intent(out) :: kernel
       integer(c_int) :: status
     end function tsr_gemm_plan_dgemm_kernel

     function tsr_gemm_plan_destroy(plan) bind(C, name="tsr_gemm_plan_destroy") result(status)
       import :: c_ptr, c_int
       type(c_ptr), value :: plan
       integer(c_int) :: status
     end function tsr_gemm_plan_destroy

     function c_strlen(text) bind(C, name="strlen") result(length)
       import :: c_ptr, c_size_t
       type(c_ptr), value :: text
       integer(c_size_t) :: length
     end function c_strlen
  end interface

  ! ---- Wrappers ----------------------------------------------------------------------------
  public :: tessera_version, tessera_status_string, tessera_last_error, tessera_create, &
       tessera_destroy, tessera_set_backend, tessera_get_backend, tessera_backend_available, &
       tessera_set_num_threads, tessera_set_strassen, tessera_gemm, tessera_sparse_csr, tessera_sparse_coo, &
       tessera_sparse_optimize, tessera_sparse_format, tessera_sparse_destroy, tessera_spmv, &
       tessera_spmm

  !> C = alpha*op(A)*op(B) + beta*C for 2-D real32 or real64 arrays.
  interface tessera_gemm
     module procedure gemm_real32, gemm_real64
  end interface tessera_gemm

  !> A sparse matrix from CSR arrays (values real32/real64, indices int32/int64).
  interface tessera_sparse_csr
     module procedure csr_r32_i32, csr_r32_i64, csr_r64_i32, csr_r64_i64
  end interface tessera_sparse_csr

  !> A sparse matrix from coordinates (values real32/real64, indices int32/int64).
  interface tessera_sparse_coo
     module procedure coo_r32_i32, coo_r32_i64, coo_r64_i32, coo_r64_i64
  end interface tessera_sparse_coo

  !> y = alpha*op(A)*x + beta*y for real32 or real64 vectors.
  interface tessera_spmv
     module procedure spmv_real32, spmv_real64
  end interface tessera_spmv

  !> Y = alpha*op(A)*X + beta*Y for 2-D real32 or real64 blocks (columns of X and Y).
  interface tessera_spmm
     module procedure spmm_real32, spmm_real64
  end interface tessera_spmm

contains

  ! ---- Strings and errors ------------------------------------------------------------------

  !> A Fortran string from a NUL-terminated C string ("" for a null pointer).
  function from_c(text) result(s)
    type(c_ptr), intent(in) :: text
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(text)) then
       s = ""
       return
    end if
    n = int(c_strlen(text))
    call c_f_pointer(text, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
       s(i:i) = chars(i)
    end do
  end function from_c

  !> The library's version, "major.minor.patch".
  function tessera_version() result(s)
    character(len=:), allocatable :: s
    s = from_c(tsr_version())
  end function tessera_version

  !> The English text of a status code.
  function tessera_status_string(status) result(s)
    integer, intent(in) :: status
    character(len=:), allocatable :: s
    s = from_c(tsr_status_string(int(status, c_int)))
  end function tessera_status_string

  !> The detail of this thread's last failed library call.
  function tessera_last_error() result(s)
    character(len=:), allocatable :: s
    s = from_c(tsr_last_error())
  end function tessera_last_error

  !> Hands a status to the caller: into stat (and errmsg, when it failed) if they are present;
  !> otherwise a failure stops the program with the message, as an unchecked Fortran error does.
  subroutine finish(status, where, detail, stat, errmsg)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: where, detail
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=:), allocatable :: message
    if (status /= TSR_SUCCESS) then
       message = where // ": " // tessera_status_string(int(status)) // ": " // detail
    end if
    if (present(stat)) then
       stat = int(status)
       if (status /= TSR_SUCCESS .and. present(errmsg)) errmsg = message
    else if (status /= TSR_SUCCESS) then
       write (error_unit, '(a)') "tessera: " // message
       error stop 1
    end if
  end subroutine finish

  !> finish() for a library call: the detail is tsr_last_error()'s text.
  subroutine finish_call(status, where, stat, errmsg)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: where
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (status /= TSR_SUCCESS) then
       call finish(status, where, tessera_last_error(), stat, errmsg)
    else
       call finish(status, where, "", stat, errmsg)
    end if
  end subroutine finish_call

  function handle_ptr(handle) result(p)
    type(tessera_handle), intent(in), optional :: handle
    type(c_ptr) :: p
    p = c_null_ptr
    if (present(handle)) p = handle%ptr
  end function handle_ptr

  !> TSR_OP_N / TSR_OP_T / TSR_OP_C for 'N', 'T', 'C' (either case); -1 for anything else.
  function op_of(trans) result(op)
    character(len=1), intent(in) :: trans
    integer(c_int) :: op
    select case (trans)
    case ('N', 'n')
       op = TSR_OP_N
    case ('T', 't')
       op = TSR_OP_T
    case ('C', 'c')
       op = TSR_OP_C
    case default
       op = -1
    end select
  end function op_of

  ! ---- Handles -----------------------------------------------------------------------------

  !> Creates a handle; backend (TSR_BACKEND_*) and num_threads are optional settings.
  subroutine tessera_create(handle, backend, num_threads, stat, errmsg)
    type(tessera_handle), intent(out) :: handle
    integer, intent(in), optional :: backend, num_threads
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: status
    type(c_ptr) :: p
    status = tsr_create(p)
    if (status == TSR_SUCCESS) then
       handle%ptr = p
       if (present(backend)) then
          status = tsr_set_backend(p, int(backend, c_int))
          if (status == TSR_SUCCESS .and. present(num_threads)) &
               status = tsr_set_num_threads(p, int(num_threads, c_int))
       else if (present(num_threads)) then
          status = tsr_set_num_threads(p, int(num_threads, c_int))
       end if
       if (status /= TSR_SUCCESS) then
          call finish_call(status, "tessera_create", stat, errmsg)
          if (tsr_destroy(p) == TSR_SUCCESS) handle%ptr = c_null_ptr
          return
       end if
    end if
    call finish_call(status, "tessera_create", stat, errmsg)
  end subroutine tessera_create

  !> Destroys a handle and resets it (destroying an unset handle does nothing).
  subroutine tessera_destroy(handle, stat, errmsg)
    type(tessera_handle), intent(inout) :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: status
    status = TSR_SUCCESS
    if (c_associated(handle%ptr)) status = tsr_destroy(handle%ptr)
    if (status == TSR_SUCCESS) handle%ptr = c_null_ptr
    call finish_call(status, "tessera_destroy", stat, errmsg)
  end subroutine tessera_destroy

  !> Chooses the handle's backend (TSR_BACKEND_*); an unavailable one fails and keeps the old.
  subroutine tessera_set_backend(handle, backend, stat, errmsg)
    type(tessera_handle), intent(in) :: handle
    integer, intent(in) :: backend
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call finish_call(tsr_set_backend(handle%ptr, int(backend, c_int)), "tessera_set_backend", &
         stat, errmsg)
  end subroutine tessera_set_backend

  !> The backend the handle is set to (TSR_BACKEND_*).
  subroutine tessera_get_backend(handle, backend, stat, errmsg)
    type(tessera_handle), intent(in) :: handle
    integer, intent(out) :: backend
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: value
    value = -1
    call finish_call(tsr_get_backend(handle%ptr, value), "tessera_get_backend", stat, errmsg)
    backend = int(value)
  end subroutine tessera_get_backend

  !> Sets the CPU thread count of the handle's calls (>= 1).
  subroutine tessera_set_num_threads(handle, num_threads, stat, errmsg)
    type(tessera_handle), intent(in) :: handle
    integer, intent(in) :: num_threads
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call finish_call(tsr_set_num_threads(handle%ptr, int(num_threads, c_int)), &
         "tessera_set_num_threads", stat, errmsg)
  end subroutine tessera_set_num_threads

  !> Opts the handle's CPU products into Strassen's method: levels 0 (classical, the default),
  !> 1 or 2; min_block is the smallest block a split may produce (0 or absent: 1024).
  subroutine tessera_set_strassen(handle, levels, min_block, stat, errmsg)
    type(tessera_handle), intent(in) :: handle
    integer, intent(in) :: levels
    integer(int64), intent(in), optional :: min_block
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: block
    block = 0
    if (present(min_block)) block = int(min_block, c_int64_t)
    call finish_call(tsr_set_strassen(handle%ptr, int(levels, c_int), block), &
         "tessera_set_strassen", stat, errmsg)
  end subroutine tessera_set_strassen

  !> Whether a backend (TSR_BACKEND_*) can run here.
  function tessera_backend_available(backend) result(available)
    integer, intent(in) :: backend
    logical :: available
    integer(c_int) :: flag
    flag = 0
    available = tsr_backend_available(int(backend, c_int), flag) == TSR_SUCCESS .and. flag /= 0
  end function tessera_backend_available

  ! ---- Dense products ----------------------------------------------------------------------

  !> The sizes of C = op(A)*op(B) from the arrays' shapes; status /= 0 with detail on a mismatch.
  subroutine gemm_sizes(transa, transb, shape_a, shape_b, shape_c, opa, opb, m, n, k, status, &
       detail)
    character(len=1), intent(in) :: transa, transb
    integer(int64), intent(in) :: shape_a(2), shape_b(2), shape_c(2)
    integer(c_int), intent(out) :: opa, opb, status
    integer(int64), intent(out) :: m, n, k
    character(len=:), allocatable, intent(out) :: detail
    integer(int64) :: kb
    character(len=160) :: line
    opa = op_of(transa)
    opb = op_of(transb)
    m = shape_c(1)
    n = shape_c(2)
    status = TSR_SUCCESS
    detail = ""
    if (opa < 0 .or. opb < 0) then
       status = TSR_ERR_INVALID_ARGUMENT
       detail = "transa and transb must be 'N', 'T' or 'C', not '" // transa // "', '" // &
            transb // "'"
       return
    end if
    if (opa == TSR_OP_N) then
       k = shape_a(2)
       if (shape_a(1) /= m) status = TSR_ERR_INVALID_ARGUMENT
    else
       k = shape_a(1)
       if (shape_a(2) /= m) status = TSR_ERR_INVALID_ARGUMENT
    end if
    if (opb == TSR_OP_N) then
       kb = shape_b(1)
       if (shape_b(2) /= n) status = TSR_ERR_INVALID_ARGUMENT
    else
       kb = shape_b(2)
       if (shape_b(1) /= n) status = TSR_ERR_INVALID_ARGUMENT
    end if
    if (kb /= k) status = TSR_ERR_INVALID_ARGUMENT
    if (status /= TSR_SUCCESS) then
       write (line, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a)') "shapes do not match: A is ", &
            shape_a(1), "x", shape_a(2), ", B is ", shape_b(1), "x", shape_b(2), ", C is ", &
            shape_c(1), "x", shape_c(2), " (transa='" // transa // "', transb='" // transb // "')"
       detail = trim(line)
    end if
  end subroutine gemm_sizes

  !> C = alpha*op(A)*op(B) + beta*C, single precision; transa/transb are 'N', 'T' or 'C'.
  !> The sizes come from the arrays; a mismatch fails before the library is called.
  subroutine gemm_real32(transa, transb, alpha, a, b, beta, c, handle, stat, errmsg)
    character(len=1), intent(in) :: transa, transb
    real(real32), intent(in) :: alpha, beta
    real(real32), intent(in), contiguous :: a(:, :), b(:, :)
    real(real32), intent(inout), contiguous :: c(:, :)
    type(tessera_handle), intent(in), optional :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: opa, opb, status
    integer(int64) :: m, n, k
    character(len=:), allocatable :: detail
    call gemm_sizes(transa, transb, shape(a, int64), shape(b, int64), shape(c, int64), opa, opb, &
         m, n, k, status, detail)
    if (status /= TSR_SUCCESS) then
       call finish(status, "tessera_gemm", detail, stat, errmsg)
       return
    end if
    status = tsr_sgemm(handle_ptr(handle), TSR_COL_MAJOR, opa, opb, m, n, k, alpha, a, &
         max(1_int64, size(a, 1, int64)), b, max(1_int64, size(b, 1, int64)), beta, c, &
         max(1_int64, size(c, 1, int64)))
    call finish_call(status, "tessera_gemm", stat, errmsg)
  end subroutine gemm_real32

  !> C = alpha*op(A)*op(B) + beta*C, double precision; as gemm_real32.
  subroutine gemm_real64(transa, transb, alpha, a, b, beta, c, handle, stat, errmsg)
    character(len=1), intent(in) :: transa, transb
    real(real64), intent(in) :: alpha, beta
    real(real64), intent(in), contiguous :: a(:, :), b(:, :)
    real(real64), intent(inout), contiguous :: c(:, :)
    type(tessera_handle), intent(in), optional :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: opa, opb, status
    integer(int64) :: m, n, k
    character(len=:), allocatable :: detail
    call gemm_sizes(transa, transb, shape(a, int64), shape(b, int64), shape(c, int64), opa, opb, &
         m, n, k, status, detail)
    if (status /= TSR_SUCCESS) then
       call finish(status, "tessera_gemm", detail, stat, errmsg)
       return
    end if
    status = tsr_dgemm(handle_ptr(handle), TSR_COL_MAJOR, opa, opb, m, n, k, alpha, a, &
         max(1_int64, size(a, 1, int64)), b, max(1_int64, size(b, 1, int64)), beta, c, &
         max(1_int64, size(c, 1, int64)))
    call finish_call(status, "tessera_gemm", stat, errmsg)
  end subroutine gemm_real64

  ! ---- Sparse matrices ---------------------------------------------------------------------
  ! The library takes 0-based indices. Fortran callers usually hold 1-based ones: index_base
  ! (default 1) says which the arrays use; 1-based arrays are shifted into a temporary copy.

  !> Checks what the library cannot see (the arrays' lengths, index_base), then creates the
  !> matrix from the arrays' C addresses; shared by every typed variant.
  subroutine build(kind, matrix, rows, cols, base, n_first, n_col, n_values, dtype, itype, &
       first, col, values, handle, stat, errmsg)
    character(len=3), intent(in) :: kind
    type(tessera_sparse), intent(inout) :: matrix
    integer, intent(in) :: rows, cols, base
    integer(int64), intent(in) :: n_first, n_col, n_values
    integer(c_int), intent(in) :: dtype, itype
    type(c_ptr), intent(in) :: first, col, values
    type(tessera_handle), intent(in), optional :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: status
    type(c_ptr) :: p
    character(len=160) :: line
    status = TSR_ERR_INVALID_ARGUMENT
    if (base /= 0 .and. base /= 1) then
       write (line, '(a,i0)') "index_base must be 0 or 1, not ", base
    else if (rows < 0 .or. cols < 0) then
       write (line, '(a,i0,a,i0)') "negative size: rows = ", rows, ", cols = ", cols
    else if (kind == "csr" .and. n_first /= int(rows, int64) + 1) then
       write (line, '(a,i0,a,i0,a)') "row_ptr has ", n_first, " entries; ", rows + 1, " needed"
    else if (kind == "coo" .and. n_first /= n_values) then
       write (line, '(i0,a,i0,a)') n_first, " row indices but ", n_values, " values"
    else if (n_col /= n_values) then
       write (line, '(i0,a,i0,a)') n_col, " column indices but ", n_values, " values"
    else
       status = TSR_SUCCESS
    end if
    if (status /= TSR_SUCCESS) then
       call finish(status, "tessera_sparse_" // kind, trim(line), stat, errmsg)
       return
    end if
    if (kind == "csr") then
       status = tsr_sparse_create_csr(handle_ptr(handle), p, dtype, itype, int(rows, int64), &
            int(cols, int64), n_values, first, col, values)
    else
       status = tsr_sparse_create_coo(handle_ptr(handle), p, dtype, itype, int(rows, int64), &
            int(cols, int64), n_values, first, col, values)
    end if
    if (status == TSR_SUCCESS) then
       matrix%ptr = p
       matrix%dtype = dtype
       matrix%rows = rows
       matrix%cols = cols
    end if
    call finish_call(status, "tessera_sparse_" // kind, stat, errmsg)
  end subroutine build

  integer function base_of(index_base)
    integer, intent(in), optional :: index_base
    base_of = 1
    if (present(index_base)) base_of = index_base
  end function base_of

  ! The eight specific procedures of tessera_sparse_csr and tessera_sparse_coo (real32/real64
  ! values, int32/int64 indices) are one template: each names its kinds rk and ik and its first
  ! index array (row_ptr or row_idx, the keyword callers may use), then takes the other dummy
  ! arguments from tessera_sparse_arguments.inc and the procedure that does the work, create,
  ! from tessera_sparse_create.inc.

  !> A real32 matrix from CSR arrays with int32 indices.
  subroutine csr_r32_i32(matrix, rows, cols, row_ptr, col_idx, values, index_base, handle, &
       stat, errmsg)
    integer, parameter :: rk = real32, ik = int32
    integer(ik), intent(in), target, contiguous :: row_ptr(:)
    include "tessera_sparse_arguments.inc"
    call create("csr", row_ptr)
  contains
    include "tessera_sparse_create.inc"
  end subroutine csr_r32_i32

  !> A real32 matrix from CSR arrays with int64 indices.
  subroutine csr_r32_i64(matrix, rows, cols, row_ptr, col_idx, values, index_base, handle, &
       stat, errmsg)
    integer, parameter :: rk = real32, ik = int64
    integer(ik), intent(in), target, contiguous :: row_ptr(:)
    include "tessera_sparse_arguments.inc"
    call create("csr", row_ptr)
  contains
    include "tessera_sparse_create.inc"
  end subroutine csr_r32_i64

  !> A real64 matrix from CSR arrays with int32 indices.
  subroutine csr_r64_i32(matrix, rows, cols, row_ptr, col_idx, values, index_base, handle, &
       stat, errmsg)
    integer, parameter :: rk = real64, ik = int32
    integer(ik), intent(in), target, contiguous :: row_ptr(:)
    include "tessera_sparse_arguments.inc"
    call create("csr", row_ptr)
  contains
    include "tessera_sparse_create.inc"
  end subroutine csr_r64_i32

  !> A real64 matrix from CSR arrays with int64 indices.
  subroutine csr_r64_i64(matrix, rows, cols, row_ptr, col_idx, values, index_base, handle, &
       stat, errmsg)
    integer, parameter :: rk = real64, ik = int64
    integer(ik), intent(in), target, contiguous :: row_ptr(:)
    include "tessera_sparse_arguments.inc"
    call create("csr", row_ptr)
  contains
    include "tessera_sparse_create.inc"
  end subroutine csr_r64_i64

  !> A real32 matrix from coordinates with int32 indices.
  subroutine coo_r32_i32(matrix, rows, cols, row_idx, col_idx, values, index_base, handle, &
       stat, errmsg)
    integer, parameter :: rk = real32, ik = int32
    integer(ik), intent(in), target, contiguous :: row_idx(:)
    include "tessera_sparse_arguments.inc"
    call create("coo", row_idx)
  contains
    include "tessera_sparse_create.inc"
  end subroutine coo_r32_i32

  !> A real32 matrix from coordinates with int64 indices.
  subroutine coo_r32_i64(matrix, rows, cols, row_idx, col_idx, values, index_base, handle, &
       stat, errmsg)
    integer, parameter :: rk = real32, ik = int64
    integer(ik), intent(in), target, contiguous :: row_idx(:)
    include "tessera_sparse_arguments.inc"
    call create("coo", row_idx)
  contains
    include "tessera_sparse_create.inc"
  end subroutine coo_r32_i64

  !> A real64 matrix from coordinates with int32 indices.
  subroutine coo_r64_i32(matrix, rows, cols, row_idx, col_idx, values, index_base, handle, &
       stat, errmsg)
    integer, parameter :: rk = real64, ik = int32
    integer(ik), intent(in), target, contiguous :: row_idx(:)
    include "tessera_sparse_arguments.inc"
    call create("coo", row_idx)
  contains
    include "tessera_sparse_create.inc"
  end subroutine coo_r64_i32

  !> A real64 matrix from coordinates with int64 indices.
  subroutine coo_r64_i64(matrix, rows, cols, row_idx, col_idx, values, index_base, handle, &
       stat, errmsg)
    integer, parameter :: rk = real64, ik = int64
    integer(ik), intent(in), target, contiguous :: row_idx(:)
    include "tessera_sparse_arguments.inc"
    call create("coo", row_idx)
  contains
    include "tessera_sparse_create.inc"
  end subroutine coo_r64_i64

  !> Chooses the storage format of the matrix (TSR_FORMAT_*, default TSR_FORMAT_AUTO).
  subroutine tessera_sparse_optimize(matrix, format, handle, stat, errmsg)
    type(tessera_sparse), intent(in) :: matrix
    integer, intent(in), optional :: format
    type(tessera_handle), intent(in), optional :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: f
    f = TSR_FORMAT_AUTO
    if (present(format)) f = int(format, c_int)
    call finish_call(tsr_sparse_optimize(handle_ptr(handle), matrix%ptr, f), &
         "tessera_sparse_optimize", stat, errmsg)
  end subroutine tessera_sparse_optimize

  !> The format the matrix's products use (TSR_FORMAT_*), or -1 for an unset matrix.
  function tessera_sparse_format(matrix) result(format)
    type(tessera_sparse), intent(in) :: matrix
    integer :: format
    integer(c_int) :: f
    f = -1
    if (tsr_sparse_get_format(matrix%ptr, f) /= TSR_SUCCESS) f = -1
    format = int(f)
  end function tessera_sparse_format

  !> Frees the library's copy of the matrix and resets it (an unset matrix is left alone).
  subroutine tessera_sparse_destroy(matrix, stat, errmsg)
    type(tessera_sparse), intent(inout) :: matrix
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: status
    status = TSR_SUCCESS
    if (c_associated(matrix%ptr)) status = tsr_sparse_destroy(matrix%ptr)
    if (status == TSR_SUCCESS) then
       matrix%ptr = c_null_ptr
       matrix%dtype = -1
    end if
    call finish_call(status, "tessera_sparse_destroy", stat, errmsg)
  end subroutine tessera_sparse_destroy

  !> The sizes of op(A)*x; status /= 0 with detail when x, y or the type do not fit.
  subroutine spmv_sizes(op, matrix, dtype, nx, ny, status, detail)
    integer(c_int), intent(in) :: op, dtype
    type(tessera_sparse), intent(in) :: matrix
    integer(int64), intent(in) :: nx, ny
    integer(c_int), intent(out) :: status
    character(len=:), allocatable, intent(out) :: detail
    integer(int64) :: n_in, n_out
    character(len=160) :: line
    status = TSR_ERR_INVALID_ARGUMENT
    detail = ""
    n_in = matrix%cols
    n_out = matrix%rows
    if (op /= TSR_OP_N) then
       n_in = matrix%rows
       n_out = matrix%cols
    end if
    if (op < 0) then
       line = "op must be 'N', 'T' or 'C'"
    else if (.not. c_associated(matrix%ptr)) then
       line = "the matrix is not set (create it first)"
    else if (matrix%dtype /= dtype) then
       line = "the matrix and the vectors have different kinds (real32 and real64)"
    else if (nx /= n_in .or. ny /= n_out) then
       write (line, '(a,i0,a,i0,a,i0,a,i0)') "op(A) is ", n_out, "x", n_in, &
            " but size(x) = ", nx, " and size(y) = ", ny
    else
       status = TSR_SUCCESS
       return
    end if
    detail = trim(line)
  end subroutine spmv_sizes

  !> y = alpha*op(A)*x + beta*y, single precision; op is 'N', 'T' or 'C'.
  subroutine spmv_real32(op, alpha, matrix, x, beta, y, handle, stat, errmsg)
    character(len=1), intent(in) :: op
    real(real32), intent(in) :: alpha, beta
    type(tessera_sparse), intent(in) :: matrix
    real(real32), intent(in), contiguous :: x(:)
    real(real32), intent(inout), contiguous :: y(:)
    type(tessera_handle), intent(in), optional :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: status
    character(len=:), allocatable :: detail
    call spmv_sizes(op_of(op), matrix, TSR_F32, size(x, kind=int64), size(y, kind=int64), &
         status, detail)
    if (status /= TSR_SUCCESS) then
       call finish(status, "tessera_spmv", detail, stat, errmsg)
       return
    end if
    call finish_call(tsr_sspmv(handle_ptr(handle), op_of(op), alpha, matrix%ptr, x, beta, y), &
         "tessera_spmv", stat, errmsg)
  end subroutine spmv_real32

  !> y = alpha*op(A)*x + beta*y, double precision; as spmv_real32.
  subroutine spmv_real64(op, alpha, matrix, x, beta, y, handle, stat, errmsg)
    character(len=1), intent(in) :: op
    real(real64), intent(in) :: alpha, beta
    type(tessera_sparse), intent(in) :: matrix
    real(real64), intent(in), contiguous :: x(:)
    real(real64), intent(inout), contiguous :: y(:)
    type(tessera_handle), intent(in), optional :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: status
    character(len=:), allocatable :: detail
    call spmv_sizes(op_of(op), matrix, TSR_F64, size(x, kind=int64), size(y, kind=int64), &
         status, detail)
    if (status /= TSR_SUCCESS) then
       call finish(status, "tessera_spmv", detail, stat, errmsg)
       return
    end if
    call finish_call(tsr_dspmv(handle_ptr(handle), op_of(op), alpha, matrix%ptr, x, beta, y), &
         "tessera_spmv", stat, errmsg)
  end subroutine spmv_real64

  !> spmv_sizes for blocks: the rows of X and Y as x and y, and as many columns in each.
  subroutine spmm_sizes(op, matrix, dtype, x_shape, y_shape, status, detail)
    integer(c_int), intent(in) :: op, dtype
    type(tessera_sparse), intent(in) :: matrix
    integer(int64), intent(in) :: x_shape(2), y_shape(2)
    integer(c_int), intent(out) :: status
    character(len=:), allocatable, intent(out) :: detail
    character(len=160) :: line
    call spmv_sizes(op, matrix, dtype, x_shape(1), y_shape(1), status, detail)
    if (status /= TSR_SUCCESS) return
    if (x_shape(2) /= y_shape(2)) then
       status = TSR_ERR_INVALID_ARGUMENT
       write (line, '(a,i0,a,i0,a)') "X has ", x_shape(2), " columns but Y has ", y_shape(2), &
            " (they must have as many)"
       detail = trim(line)
    end if
  end subroutine spmm_sizes

  !> Y = alpha*op(A)*X + beta*Y, single precision; op is 'N', 'T' or 'C'; X and Y are 2-D
  !> arrays (contiguous) with as many columns.
  subroutine spmm_real32(op, alpha, matrix, x, beta, y, handle, stat, errmsg)
    character(len=1), intent(in) :: op
    real(real32), intent(in) :: alpha, beta
    type(tessera_sparse), intent(in) :: matrix
    real(real32), intent(in), contiguous :: x(:, :)
    real(real32), intent(inout), contiguous :: y(:, :)
    type(tessera_handle), intent(in), optional :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: status
    character(len=:), allocatable :: detail
    call spmm_sizes(op_of(op), matrix, TSR_F32, shape(x, kind=int64), shape(y, kind=int64), &
         status, detail)
    if (status /= TSR_SUCCESS) then
       call finish(status, "tessera_spmm", detail, stat, errmsg)
       return
    end if
    call finish_call(tsr_sspmm(handle_ptr(handle), TSR_COL_MAJOR, op_of(op), &
         size(x, 2, kind=int64), alpha, matrix%ptr, x, max(1_int64, size(x, 1, kind=int64)), &
         beta, y, max(1_int64, size(y, 1, kind=int64))), "tessera_spmm", stat, errmsg)
  end subroutine spmm_real32

  !> Y = alpha*op(A)*X + beta*Y, double precision; as spmm_real32.
  subroutine spmm_real64(op, alpha, matrix, x, beta, y, handle, stat, errmsg)
    character(len=1), intent(in) :: op
    real(real64), intent(in) :: alpha, beta
    type(tessera_sparse), intent(in) :: matrix
    real(real64), intent(in), contiguous :: x(:, :)
    real(real64), intent(inout), contiguous :: y(:, :)
    type(tessera_handle), intent(in), optional :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: status
    character(len=:), allocatable :: detail
    call spmm_sizes(op_of(op), matrix, TSR_F64, shape(x, kind=int64), shape(y, kind=int64), &
         status, detail)
    if (status /= TSR_SUCCESS) then
       call finish(status, "tessera_spmm", detail, stat, errmsg)
       return
    end if
    call finish_call(tsr_dspmm(handle_ptr(handle), TSR_COL_MAJOR, op_of(op), &
         size(x, 2, kind=int64), alpha, matrix%ptr, x, max(1_int64, size(x, 1, kind=int64)), &
         beta, y, max(1_int64, size(y, 1, kind=int64))), "tessera_spmm", stat, errmsg)
  end subroutine spmm_real64

end module tessera
