! Test of the Fortran module `tessera`: without stat=, a failing call stops the program with the
! library's message on stderr (the test expects that message and a non-zero exit).
program test_error_stop
  use, intrinsic :: iso_fortran_env, only: real64
  use tessera
  implicit none
  real(real64) :: a(3, 4), b(5, 2), c(3, 2)
  a = 1
  b = 1
  c = 0
  call tessera_gemm('N', 'N', 1.0d0, a, b, 0.0d0, c)
  print '(a)', 'not reached: the mismatched shapes were accepted'
end program test_error_stop
