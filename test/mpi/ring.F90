! ring.F90 -- Fortran traffic through each Open MPI binding: compiled
! three times, with `use mpi` (default), -DMPIFH (include 'mpif.h') and
! -DF08 (use mpi_f08).  Persistent sends to the right, a non-blocking send
! to the left, Bcast (binomial tree), Barrier (dissemination), and an
! in-place Alltoallv (direct).  Rank 0 writes the expected matrix to the
! file named by the first argument, in the raw profile's line syntax.
program ring
#if defined(F08)
  use mpi_f08
#elif !defined(MPIFH)
  use mpi
#endif
  implicit none
#if defined(MPIFH)
  include 'mpif.h'
#endif
#if defined(F08)
#define REQ type(MPI_Request)
#else
#define REQ integer
#endif
  integer :: n, r, right, left, ierr, it, j, s, v, m, d
  REQ :: preq(2), q(2)
  double precision :: sbuf(10), rbuf(10)
  integer :: ibuf(5), jbuf(5), bc(3)
  integer, allocatable :: a2a(:), cnt(:), dsp(:)
  integer(kind=8), allocatable :: pb(:,:), pm(:,:), cb(:,:), cm(:,:)
  character(len=256) :: path

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
  right = mod(r + 1, n)
  left = mod(r + n - 1, n)
  sbuf = 1.0d0
  ibuf = r

  call MPI_Send_init(sbuf, 10, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, preq(1), ierr)
  call MPI_Recv_init(rbuf, 10, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, preq(2), ierr)
  do it = 1, 3
     call MPI_Startall(2, preq, ierr)
     call MPI_Waitall(2, preq, MPI_STATUSES_IGNORE, ierr)
  end do
  call MPI_Start(preq(1), ierr)
  call MPI_Start(preq(2), ierr)
  call MPI_Waitall(2, preq, MPI_STATUSES_IGNORE, ierr)
  call MPI_Request_free(preq(1), ierr)
  call MPI_Request_free(preq(2), ierr)

  call MPI_Irecv(jbuf, 5, MPI_INTEGER, right, 2, MPI_COMM_WORLD, q(1), ierr)
  call MPI_Isend(ibuf, 5, MPI_INTEGER, left, 2, MPI_COMM_WORLD, q(2), ierr)
  call MPI_Waitall(2, q, MPI_STATUSES_IGNORE, ierr)

  bc = 7
  call MPI_Bcast(bc, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  allocate(cnt(0:n-1), dsp(0:n-1))
  do j = 0, n - 1
     cnt(j) = r + j + 1
  end do
  dsp(0) = 0
  do j = 1, n - 1
     dsp(j) = dsp(j-1) + cnt(j-1)
  end do
  allocate(a2a(dsp(n-1) + cnt(n-1)))
  a2a = r
  call MPI_Alltoallv(MPI_IN_PLACE, cnt, dsp, MPI_INTEGER, a2a, cnt, dsp, &
                     MPI_INTEGER, MPI_COMM_WORLD, ierr)

  if (r == 0) then
     allocate(pb(0:n-1,0:n-1), pm(0:n-1,0:n-1), cb(0:n-1,0:n-1), cm(0:n-1,0:n-1))
     pb = 0; pm = 0; cb = 0; cm = 0
     do s = 0, n - 1
        pb(s, mod(s + 1, n)) = pb(s, mod(s + 1, n)) + 4 * 80
        pm(s, mod(s + 1, n)) = pm(s, mod(s + 1, n)) + 4
        pb(s, mod(s + n - 1, n)) = pb(s, mod(s + n - 1, n)) + 20
        pm(s, mod(s + n - 1, n)) = pm(s, mod(s + n - 1, n)) + 1
        ! binomial bcast from root 0: the parent of v clears v's lowest bit
        v = s
        if (v > 0) then
           m = iand(v, v - 1)
           cb(m, v) = cb(m, v) + 12
           cm(m, v) = cm(m, v) + 1
        end if
        d = 1
        do while (d < n)
           cm(s, mod(s + d, n)) = cm(s, mod(s + d, n)) + 1
           d = 2 * d
        end do
        do j = 0, n - 1
           if (j /= s) then
              cb(s, j) = cb(s, j) + 4 * (s + j + 1)
              cm(s, j) = cm(s, j) + 1
           end if
        end do
     end do
     call get_command_argument(1, path)
     open(unit=10, file=trim(path), status='replace', action='write')
     do s = 0, n - 1
        do j = 0, n - 1
           if (pb(s, j) /= 0 .or. pm(s, j) /= 0) write(10, '(A,I0,A,I0,A,I0,A,I0)') &
                'p2p ', s, ' ', j, ' ', pb(s, j), ' ', pm(s, j)
           if (cb(s, j) /= 0 .or. cm(s, j) /= 0) write(10, '(A,I0,A,I0,A,I0,A,I0)') &
                'coll ', s, ' ', j, ' ', cb(s, j), ' ', cm(s, j)
        end do
     end do
     close(10)
  end if
  call MPI_Finalize(ierr)
end program ring
