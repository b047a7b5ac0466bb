! tnbc_escape.F90 -- tnbc_escape.c's io, put and neigh in Fortran (`use
! mpi`): the result of a collective handed, untouched, to MPI calls the
! tnbc overlay does not run and to the kernel, through Open MPI's Fortran
! bindings (which call the C library's PMPI functions directly).
!   io FILE   MPI_ALLGATHER, then MPI_FILE_WRITE_AT of the result into
!             FILE; again, then an unformatted stream WRITE of the result
!             into FILE.<rank> (libgfortran's write(2))
!   put       MPI_ALLGATHER, then MPI_PUT of the result between two fences
!   neigh     MPI_ALLTOALLV, then MPI_NEIGHBOR_ALLTOALLV with its result as
!             the send buffer, 10 times
! Prints "ERROR ..." and stops with 1 when a call fails or reports less
! than asked; rank 0 ends with "checksum <hex>" (mini_f.inc).
program tnbc_escape
  use mpi
  implicit none
  integer, parameter :: BLK = 128 * 1024
  integer :: n, me, ierr
  character(len=4096) :: mode, path

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  mode = ''
  path = ''
  if (command_argument_count() >= 1) call get_command_argument(1, mode)
  if (command_argument_count() >= 2) call get_command_argument(2, path)
  if (mode == 'io' .and. path /= '') then
     call run_io()
  else if (mode == 'put') then
     call run_put()
  else if (mode == 'neigh') then
     call run_neigh()
  else
     call mini_fail('usage: tnbc_escape_f io FILE | put | neigh', me)
  end if
  call MPI_Finalize(ierr)

contains

  subroutine check(rc, what)
    integer, intent(in) :: rc
    character(len=*), intent(in) :: what
    if (rc /= MPI_SUCCESS) then
       write(*, '(a,i0,a,a,a,i0)') 'ERROR rank ', me, ': ', what, ': ', rc
       stop 1
    end if
  end subroutine check

  ! The bytes rank r contributes to call c.
  subroutine fill(b, len, c, r)
    integer, intent(in) :: len, c, r
    integer(kind=1), intent(out) :: b(0:len-1)
    integer :: i, v
    do i = 0, len - 1
       v = mod(r * 131 + c * 17 + i * 7 + i / 512, 256)
       if (v > 127) v = v - 256
       b(i) = int(v, 1)
    end do
  end subroutine fill

  ! MPI_ALLGATHER of call c into r (n * BLK bytes); nothing touches r after
  ! it, so that it may still be pending under tnbc.
  subroutine gather(r, c)
    integer(kind=1), intent(inout) :: r(*)
    integer, intent(in) :: c
    integer(kind=1), allocatable :: s(:)
    allocate(s(BLK))
    call fill(s, BLK, c, me)
    call MPI_Allgather(s, BLK, MPI_BYTE, r, BLK, MPI_BYTE, MPI_COMM_WORLD, ierr)
    call check(ierr, 'MPI_ALLGATHER')
    deallocate(s)
  end subroutine gather

  subroutine run_io()
    integer(kind=1), allocatable :: r(:)
    integer :: fh, cnt, total, u
    integer :: st(MPI_STATUS_SIZE)
    integer(kind=MPI_OFFSET_KIND) :: off
    character(len=4200) :: own
    total = n * BLK
    allocate(r(total))
    call MPI_File_open(MPI_COMM_WORLD, trim(path), &
         MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
    call check(ierr, 'MPI_FILE_OPEN')
    call gather(r, 1)
    off = int(me, MPI_OFFSET_KIND) * int(total, MPI_OFFSET_KIND)
    call MPI_File_write_at(fh, off, r, total, MPI_BYTE, st, ierr)
    call check(ierr, 'MPI_FILE_WRITE_AT')
    call MPI_Get_count(st, MPI_BYTE, cnt, ierr)
    if (cnt /= total) then
       write(*, '(a,i0,a,i0,a,i0)') 'ERROR rank ', me, &
            ': MPI_FILE_WRITE_AT wrote ', cnt, ', expected ', total
       stop 1
    end if
    call MPI_File_close(fh, ierr)
    call check(ierr, 'MPI_FILE_CLOSE')
    call gather(r, 2)
    write(own, '(a,a,i0)') trim(path), '.', me
    open(newunit=u, file=trim(own), access='stream', form='unformatted', &
         status='replace', action='write')
    write(u) r
    close(u)
    call mini_checksum(r, total, MPI_COMM_WORLD)
    deallocate(r)
  end subroutine run_io

  subroutine run_put()
    integer(kind=1), allocatable :: w(:), r(:)
    integer :: win, total, right
    integer(kind=MPI_ADDRESS_KIND) :: wsize, zero
    total = n * BLK
    right = mod(me + 1, n)
    allocate(w(total), r(total))
    w = 0
    wsize = total
    zero = 0
    call MPI_Win_create(w, wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call check(ierr, 'MPI_WIN_CREATE')
    call MPI_Win_fence(0, win, ierr)
    call gather(r, 1)
    call MPI_Put(r, total, MPI_BYTE, right, zero, total, MPI_BYTE, win, ierr)
    call check(ierr, 'MPI_PUT')
    call MPI_Win_fence(0, win, ierr)
    call check(ierr, 'MPI_WIN_FENCE')
    call mini_checksum(w, total, MPI_COMM_WORLD)
    call MPI_Win_free(win, ierr)
    deallocate(w, r)
  end subroutine run_put

  subroutine run_neigh()
    integer(kind=1), allocatable :: s(:), r(:), out(:), all(:)
    integer, allocatable :: sc(:), sd(:)
    integer :: nb(2), wt(2), ring, it, j, left, right
    integer :: ns(2), nsd(2), nr(2), nrd(2)
    left = mod(me + n - 1, n)
    right = mod(me + 1, n)
    nb = (/ left, right /)
    wt = (/ 1, 1 /)
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, wt, 2, nb, wt, &
         MPI_INFO_NULL, .false., ring, ierr)
    call check(ierr, 'MPI_DIST_GRAPH_CREATE_ADJACENT')
    allocate(s(n * BLK), r(n * BLK), out(2 * BLK), all(20 * BLK), sc(n), sd(n))
    do j = 1, n
       sc(j) = BLK
       sd(j) = (j - 1) * BLK
    end do
    ns = (/ BLK, BLK /)
    nsd = (/ left * BLK, right * BLK /)
    nr = (/ BLK, BLK /)
    nrd = (/ 0, BLK /)
    do it = 0, 9
       do j = 0, n - 1
          call fill(s(j * BLK + 1:), BLK, it, me * n + j)
       end do
       call MPI_Alltoallv(s, sc, sd, MPI_BYTE, r, sc, sd, MPI_BYTE, &
            MPI_COMM_WORLD, ierr)
       call check(ierr, 'MPI_ALLTOALLV')
       call MPI_Neighbor_alltoallv(r, ns, nsd, MPI_BYTE, out, nr, nrd, &
            MPI_BYTE, ring, ierr)
       call check(ierr, 'MPI_NEIGHBOR_ALLTOALLV')
       all(it * 2 * BLK + 1:(it + 1) * 2 * BLK) = out
    end do
    call MPI_Comm_free(ring, ierr)
    call mini_checksum(all, 20 * BLK, MPI_COMM_WORLD)
    deallocate(s, r, out, all, sc, sd)
  end subroutine run_neigh

#include "mini_f.inc"
end program tnbc_escape
