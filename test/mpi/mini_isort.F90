! mini_isort.F90 -- mini_isort.c in Fortran (`use mpi`): the same keys, the
! same exchanges (MPI_Alltoall of the counts, MPI_Alltoallv of the keys),
! the same checksum.  Usage: mini_isort_f [NKEYS [SETS]]   (defaults 20000, 2)
program mini_isort
  use mpi
  implicit none
  integer, parameter :: KEYBITS = 20
  integer :: n, r, ierr, nkeys, sets, mine, round, set, i, d, o, s, got, lo, hi, k
  integer(kind=8) :: x
  integer, allocatable :: keys(:), sorted(:), cnt(:), sd(:), rc(:), rd(:)
  integer, allocatable :: recv(:), hist(:), srt(:), out(:)

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
  nkeys = int(mini_arg(1, 20000_8))
  sets = int(mini_arg(2, 2_8))
  if (nkeys < 0 .or. sets < 1) call mini_fail('usage: mini_isort_f [NKEYS [SETS]], SETS >= 1', r)
  mine = int(int(nkeys, 8) * (1 + mod(3 * r, 4)) / 2)
  allocate(keys(0:max(mine, 1) - 1), sorted(0:max(mine, 1) - 1))
  allocate(cnt(0:n-1), sd(0:n-1), rc(0:n-1), rd(0:n-1), out(0:-1))
  do round = 0, 2 * sets - 1
     set = mod(round, sets)
     x = 12345 + 1000 * set + 7 * r
     cnt = 0
     do i = 0, mine - 1
        keys(i) = skew(iand(lcg(x), 2_8**KEYBITS - 1), set, r)
        d = owner(keys(i))
        cnt(d) = cnt(d) + 1
     end do
     call displs(cnt, sd)
     do i = 0, mine - 1
        d = owner(keys(i))
        sorted(sd(d)) = keys(i)
        sd(d) = sd(d) + 1
     end do
     call displs(cnt, sd)
     call MPI_Alltoall(cnt, 1, MPI_INTEGER, rc, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
     call displs(rc, rd)
     got = sum(rc)
     allocate(recv(0:max(got, 1) - 1), srt(0:got-1))
     call MPI_Alltoallv(sorted, cnt, sd, MPI_INTEGER, recv, rc, rd, MPI_INTEGER, &
                        MPI_COMM_WORLD, ierr)
     ! key k is rank (k n) >> KEYBITS's: lo = ceil(r 2^KEYBITS / n)
     lo = int((ishft(int(r, 8), KEYBITS) + n - 1) / n)
     hi = int((ishft(int(r + 1, 8), KEYBITS) + n - 1) / n)
     allocate(hist(lo:hi))
     hist = 0
     do i = 0, got - 1
        if (recv(i) < lo .or. recv(i) >= hi) call mini_fail('a key outside this rank''s range', r)
        hist(recv(i)) = hist(recv(i)) + 1
     end do
     o = 0
     do k = lo, hi - 1
        do s = 1, hist(k)
           srt(o) = k
           o = o + 1
        end do
     end do
     out = [out, srt]
     deallocate(recv, srt, hist)
  end do
  call mini_checksum(transfer(out, [0_1]), 4 * size(out), MPI_COMM_WORLD)
  call MPI_Finalize(ierr)

contains

  ! Park-Miller's minimal standard generator (mini_isort.c: lcg).
  function lcg(x) result(v)
    integer(kind=8), intent(inout) :: x
    integer(kind=8) :: v
    x = mod(x * 16807_8, 2147483647_8)
    v = x
  end function lcg

  ! Key t of rank r skewed towards the point r (2^19 - 1) of the key range
  ! (mini_isort.c: skew).
  integer function skew(t, set, r)
    integer(kind=8), intent(in) :: t
    integer, intent(in) :: set, r
    integer(kind=8) :: k
    k = ishft(t * t, -KEYBITS)
    if (mod(set, 2) /= 0) k = ishft(k * t, -KEYBITS)
    skew = int(iand(k + int(r, 8) * 524287_8, 2_8**KEYBITS - 1))
  end function skew

  ! The rank that owns key k.
  integer function owner(k)
    integer, intent(in) :: k
    owner = int(ishft(int(k, 8) * n, -KEYBITS))
  end function owner

  ! Displacements of consecutive blocks of counts c.
  subroutine displs(c, dsp)
    integer, intent(in) :: c(0:)
    integer, intent(out) :: dsp(0:)
    integer :: j, acc
    acc = 0
    do j = 0, size(c) - 1
       dsp(j) = acc
       acc = acc + c(j)
    end do
  end subroutine displs

#include "mini_f.inc"
end program mini_isort
