! Drop-in test program: plain CALL SGEMM / CALL DGEMM, linked with -lblas (never with Tessera).
! Run under LD_PRELOAD=libtessera.so.0 by dropin_run.sh; checks every product against a loop.
program dropin_blas
  implicit none
  integer, parameter :: m = 67, n = 45, k = 53
  ! op(A) = A(m x k) stored as an (m x k) or, transposed, a (k x m) array; B likewise.
  double precision :: an(m, k), at(k, m), bn(k, n), bt(n, k), c0(m, n)
  double precision :: c(m, n), ref(m, n), scale(m, n)
  real :: san(m, k), sat(k, m), sbn(k, n), sbt(n, k), sc(m, n)
  character(len=1), parameter :: ops(2) = ['N', 'T']
  double precision, parameter :: alpha = 0.75d0, beta = -1.25d0
  integer :: i, j, ia, ib, products
  logical :: ok
  external :: sgemm, dgemm

  do j = 1, k
     do i = 1, m
        an(i, j) = dble(mod(i * 17 + j * 29, 31) - 15) / 16
     end do
  end do
  do j = 1, n
     do i = 1, k
        bn(i, j) = dble(mod(i * 11 + j * 7, 37) - 18) / 16
     end do
  end do
  do j = 1, n
     do i = 1, m
        c0(i, j) = dble(mod(i + 3 * j, 13)) / 4
     end do
  end do
  at = transpose(an)
  bt = transpose(bn)
  ! The values are multiples of 1/16: exact in single precision too.
  san = real(an)
  sat = real(at)
  sbn = real(bn)
  sbt = real(bt)

  ok = .true.
  products = 0
  do j = 1, n
     do i = 1, m
        ref(i, j) = alpha * sum(an(i, :) * bn(:, j)) + beta * c0(i, j)
        scale(i, j) = abs(alpha) * sum(abs(an(i, :) * bn(:, j))) + abs(beta) * abs(c0(i, j))
     end do
  end do

  do ia = 1, 2
     do ib = 1, 2
        sc = real(c0)
        if (ops(ia) == 'N' .and. ops(ib) == 'N') then
           call sgemm('N', 'N', m, n, k, real(alpha), san, m, sbn, k, real(beta), sc, m)
        else if (ops(ia) == 'N') then
           call sgemm('N', 'T', m, n, k, real(alpha), san, m, sbt, n, real(beta), sc, m)
        else if (ops(ib) == 'N') then
           call sgemm('T', 'N', m, n, k, real(alpha), sat, k, sbn, k, real(beta), sc, m)
        else
           call sgemm('T', 'T', m, n, k, real(alpha), sat, k, sbt, n, real(beta), sc, m)
        end if
        call judge('SGEMM', ops(ia), ops(ib), dble(sc), dble(epsilon(1.0)) / 2)

        c = c0
        if (ops(ia) == 'N' .and. ops(ib) == 'N') then
           call dgemm('N', 'N', m, n, k, alpha, an, m, bn, k, beta, c, m)
        else if (ops(ia) == 'N') then
           call dgemm('N', 'T', m, n, k, alpha, an, m, bt, n, beta, c, m)
        else if (ops(ib) == 'N') then
           call dgemm('T', 'N', m, n, k, alpha, at, k, bn, k, beta, c, m)
        else
           call dgemm('T', 'T', m, n, k, alpha, at, k, bt, n, beta, c, m)
        end if
        call judge('DGEMM', ops(ia), ops(ib), c, epsilon(1.0d0) / 2)
     end do
  end do
  if (.not. ok) then
     print '(a)', 'dropin_blas: FAILED'
     stop 1
  end if
  print '(a,i0,a)', 'dropin_blas: ', products, ' products right'

contains

  ! |got - ref| <= 4 (k + 2) u (|alpha| |A||B| + |beta| |C0|), entry by entry.
  subroutine judge(name, opa, opb, got, u)
    character(len=*), intent(in) :: name
    character(len=1), intent(in) :: opa, opb
    double precision, intent(in) :: got(m, n), u
    integer :: bad
    bad = count(abs(got - ref) > 4 * (k + 2) * u * scale)
    products = products + 1
    if (bad > 0) then
       ok = .false.
       print '(a,1x,a,a,a,i0,a)', name, opa, opb, ': ', bad, ' entries outside the error bound'
    end if
  end subroutine judge

end program dropin_blas
