! mini_transpose.F90 -- mini_transpose.c in Fortran (`use mpi`): the same
! sweeps and MPI_Alltoall transposes over the same array (element (i, j) of
! the C program is a(j, i) here), the same checksum.
! Usage: mini_transpose_f [B]   (default 32)
program mini_transpose
  use mpi
  implicit none
  integer, parameter :: PASSES = 3
  integer :: n, r, ierr, b, len, i, j, k, d, s, pass
  double precision, allocatable :: a(:,:), sbuf(:,:,:), rbuf(:,:,:)

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
  b = int(mini_arg(1, 32_8))
  if (b < 1) call mini_fail('usage: mini_transpose_f [B], B >= 1', r)
  len = b * n
  allocate(a(0:len-1, 0:b-1), sbuf(0:b-1, 0:b-1, 0:n-1), rbuf(0:b-1, 0:b-1, 0:n-1))
  do i = 0, b - 1
     do j = 0, len - 1
        a(j, i) = dble(mod(int(r * b + i, 8) * len + j, 1000_8)) * 0.001d0
     end do
  end do
  do pass = 1, PASSES
     do i = 0, b - 1
        call sweep(a(:, i), len)
     end do
     do d = 0, n - 1
        do i = 0, b - 1
           do k = 0, b - 1
              sbuf(k, i, d) = a(d * b + k, i)
           end do
        end do
     end do
     call MPI_Alltoall(sbuf, b * b, MPI_DOUBLE_PRECISION, rbuf, b * b, &
                       MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
     do s = 0, n - 1
        do i = 0, b - 1
           do k = 0, b - 1
              a(s * b + k, i) = rbuf(i, k, s)
           end do
        end do
        do i = 0, b - 1
           call sweep(a(s * b:s * b + b - 1, i), b)
        end do
     end do
  end do
  call mini_checksum(transfer(a, [0_1]), 8 * len * b, MPI_COMM_WORLD)
  call MPI_Finalize(ierr)

contains

  ! The work along a row, in order (mini_transpose.c: sweep).
  subroutine sweep(row, cnt)
    integer, intent(in) :: cnt
    double precision, intent(inout) :: row(0:cnt-1)
    integer :: q
    do q = 1, cnt - 1
       row(q) = row(q) + 0.5d0 * row(q - 1)
    end do
  end subroutine sweep

#include "mini_f.inc"
end program mini_transpose
