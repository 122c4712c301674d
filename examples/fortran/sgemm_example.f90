! Tessera example: the standard Fortran BLAS interface, CALL SGEMM and CALL DGEMM, linked
! with -ltessera; each result is checked against a plain loop and STOP 1 reports a mismatch.
program sgemm_example
  implicit none
  integer, parameter :: m = 4, n = 3, k = 5
  real :: a(m, k), b(k, n), c(m, n), cref(m, n)
  double precision :: ad(k, m), bd(n, k), cd(m + 1, n), cdref(m, n)
  real :: alpha, beta
  double precision :: alphad, betad
  integer :: i, j, p
  logical :: ok
  external :: sgemm, dgemm

  ! Single precision: C = alpha*A*B + beta*C, no transposes.
  do j = 1, k
    do i = 1, m
      a(i, j) = real(mod(i + 2 * j, 5) - 2)
    end do
  end do
  do j = 1, n
    do i = 1, k
      b(i, j) = real(mod(3 * i + j, 7) - 3)
    end do
  end do
  do j = 1, n
    do i = 1, m
      c(i, j) = real(i - j)
    end do
  end do
  alpha = 2.0
  beta = -1.0
  do j = 1, n
    do i = 1, m
      cref(i, j) = beta * c(i, j)
      do p = 1, k
        cref(i, j) = cref(i, j) + alpha * a(i, p) * b(p, j)
      end do
    end do
  end do

  call sgemm('N', 'N', m, n, k, alpha, a, m, b, k, beta, c, m)

  ok = .true.
  print '(a)', 'SGEMM: C = 2*A*B - C'
  do i = 1, m
    print '(3f9.1)', (c(i, j), j = 1, n)
    do j = 1, n
      if (abs(c(i, j) - cref(i, j)) > 1.0e-5 * (1.0 + abs(cref(i, j)))) ok = .false.
    end do
  end do
  if (.not. ok) then
    print '(a)', 'SGEMM result differs from the loop'
    stop 1
  end if

  ! Double precision: C = alpha*A**T*B**T + beta*C, with A stored k x m, B stored n x k
  ! and C given a leading dimension m+1 (its last row is padding that must not change).
  do j = 1, m
    do i = 1, k
      ad(i, j) = dble(mod(i * j, 4)) - 1.5d0
    end do
  end do
  do j = 1, k
    do i = 1, n
      bd(i, j) = dble(mod(i + j, 3)) + 0.25d0
    end do
  end do
  do j = 1, n
    do i = 1, m + 1
      cd(i, j) = dble(i + 10 * j)
    end do
  end do
  alphad = 0.5d0
  betad = 2.0d0
  do j = 1, n
    do i = 1, m
      cdref(i, j) = betad * cd(i, j)
      do p = 1, k
        cdref(i, j) = cdref(i, j) + alphad * ad(p, i) * bd(j, p)
      end do
    end do
  end do

  call dgemm('T', 'T', m, n, k, alphad, ad, k, bd, n, betad, cd, m + 1)

  print '(a)', 'DGEMM: C = 0.5*A**T*B**T + 2*C'
  do i = 1, m
    print '(3f10.3)', (cd(i, j), j = 1, n)
    do j = 1, n
      if (abs(cd(i, j) - cdref(i, j)) > 1.0d-12 * (1.0d0 + abs(cdref(i, j)))) ok = .false.
    end do
  end do
  do j = 1, n
    if (cd(m + 1, j) /= dble(m + 1 + 10 * j)) ok = .false.
  end do
  if (.not. ok) then
    print '(a)', 'DGEMM result differs from the loop'
    stop 1
  end if

  print '(a)', 'all results match the plain loop'
end program sgemm_example
