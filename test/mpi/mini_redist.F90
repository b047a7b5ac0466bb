! mini_redist.F90 -- mini_redist.c in Fortran (`use mpi`): the same
! block-cyclic(x) -> block-cyclic(y) -> block-cyclic(x) round trips by
! MPI_Alltoallv, the same checks, the same checksum.
! Usage: mini_redist_f [X [Y [M]]]   (defaults 3, 5, 100003)
program mini_redist
  use mpi
  implicit none
  integer, parameter :: ROUNDS = 2
  integer :: n, r, ierr, round, comm
  integer(kind=8) :: x, y, m
  ! the elements this rank holds under block-cyclic(x) and (y), by
  ! increasing g, which is also the order they are stored in: ga, gb;
  ! their values: a, b
  integer(kind=8), allocatable :: ga(:), gb(:)
  double precision, allocatable :: a(:), b(:), sbuf(:), rbuf(:)
  integer, allocatable :: cnt(:), sd(:), rc(:), rd(:)

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
  x = mini_arg(1, 3_8)
  y = mini_arg(2, 5_8)
  m = mini_arg(3, 100003_8)
  if (x < 1 .or. y < 1 .or. m < 0) call mini_fail('usage: mini_redist_f [X [Y [M]]]', r)
  call mine(x, ga)
  call mine(y, gb)
  allocate(a(0:size(ga)-1), b(0:size(gb)-1))
  allocate(sbuf(0:max(size(ga), size(gb))), rbuf(0:max(size(ga), size(gb))))
  allocate(cnt(0:n-1), sd(0:n-1), rc(0:n-1), rd(0:n-1))
  a = dble(ga) + 0.5d0
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  do round = 1, ROUNDS
     b = 0
     call redistribute(ga, x, a, gb, y, b, comm)
     if (any(b /= dble(gb) + 0.5d0)) call mini_fail('wrong element after cyclic(x) -> cyclic(y)', r)
     a = 0
     call redistribute(gb, y, b, ga, x, a, MPI_COMM_WORLD)
     if (any(a /= dble(ga) + 0.5d0)) call mini_fail('wrong element after cyclic(y) -> cyclic(x)', r)
  end do
  call MPI_Comm_free(comm, ierr)
  call mini_checksum(transfer(b, [0_1]), 8 * size(b), MPI_COMM_WORLD)
  call MPI_Finalize(ierr)

contains

  ! The rank element g lives on under block-cyclic(bl).
  integer function owner(g, bl)
    integer(kind=8), intent(in) :: g, bl
    owner = int(mod(g / bl, int(n, 8)))
  end function owner

  ! The elements this rank holds under block-cyclic(bl), by increasing g
  ! (mini_redist.c: mine).
  subroutine mine(bl, list)
    integer(kind=8), intent(in) :: bl
    integer(kind=8), allocatable, intent(out) :: list(:)
    integer(kind=8) :: q, e, c
    c = 0
    q = int(r, 8) * bl
    do while (q < m)
       c = c + min(m - q, bl)
       q = q + bl * n
    end do
    allocate(list(0:c-1))
    c = 0
    q = int(r, 8) * bl
    do while (q < m)
       do e = q, min(q + bl, m) - 1
          list(c) = e
          c = c + 1
       end do
       q = q + bl * n
    end do
  end subroutine mine

  ! The values vf of the elements gf (block-cyclic(bf)) into vt, the
  ! elements gt (block-cyclic(bt)), with one MPI_Alltoallv over cm, packed
  ! by destination in increasing g (mini_redist.c: redistribute).
  subroutine redistribute(gf, bf, vf, gt, bt, vt, cm)
    integer(kind=8), intent(in) :: gf(0:), gt(0:), bf, bt
    double precision, intent(in) :: vf(0:)
    double precision, intent(out) :: vt(0:)
    integer, intent(in) :: cm
    integer :: d, i, so, ro
    cnt = 0
    rc = 0
    do i = 0, size(gf) - 1
       d = owner(gf(i), bt)
       cnt(d) = cnt(d) + 1
    end do
    do i = 0, size(gt) - 1
       d = owner(gt(i), bf)
       rc(d) = rc(d) + 1
    end do
    so = 0
    ro = 0
    do d = 0, n - 1
       sd(d) = so
       rd(d) = ro
       so = so + cnt(d)
       ro = ro + rc(d)
    end do
    do i = 0, size(gf) - 1
       d = owner(gf(i), bt)
       sbuf(sd(d)) = vf(i)
       sd(d) = sd(d) + 1
    end do
    sd = sd - cnt
    call MPI_Alltoallv(sbuf, cnt, sd, MPI_DOUBLE_PRECISION, rbuf, rc, rd, &
                       MPI_DOUBLE_PRECISION, cm, ierr)
    do i = 0, size(gt) - 1
       d = owner(gt(i), bf)
       vt(i) = rbuf(rd(d))
       rd(d) = rd(d) + 1
    end do
  end subroutine redistribute

#include "mini_f.inc"
end program mini_redist
