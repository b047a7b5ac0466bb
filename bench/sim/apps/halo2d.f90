! halo2d.f90 -- halo2d.c's 2-D 5-point halo exchange in Fortran 90, so that
! the judge also covers Fortran MPI bindings (SMPI's differ from its C ones:
! smpif90 compiles with -ff2c -fno-second-underscore).  Ranks on a
! non-periodic grid from MPI_Dims_create, row-major as in halo2d.c, swap
! four faces of --bytes per iteration (Irecv, Isend, Waitall).
!
! Options: --iters N (default 20), --bytes B (default 262144; rounded up to
! a multiple of 4, the faces are default integers), --print-hosts, -h or
! --help (smpirun keeps --help for SimGrid).  No --compute: Fortran cannot
! reach smpi_execute_flops portably, and a real loop would be charged under
! SMPI only by measurement.  Prints "halo2d-f: ok <checksum>", where the
! checksum sums the stamps (small integers) received; it is not comparable
! with halo2d.c's.  A bad option exits with code 2.
program halo2d_f
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, iters, nbytes, nwords, i, k, d, it, nreq
  integer :: dims(2), c(2), n(2), peer(0:3), reqs(8), plen, code, quit_code
  integer, allocatable :: sbuf(:,:), rbuf(:,:)
  integer(kind=8) :: mine(2), total(2)
  logical :: print_hosts
  character(len=256) :: arg, opt
  character(len=MPI_MAX_PROCESSOR_NAME) :: host

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  iters = 20
  nbytes = 262144
  print_hosts = .false.
  quit_code = -1
  i = 1
  do while (i <= command_argument_count() .and. quit_code < 0)
     call get_command_argument(i, arg)
     select case (trim(arg))
     case ('--iters', '--bytes')
        if (i == command_argument_count()) then
           call quit(2, 'missing value for', arg)
           exit
        end if
        opt = arg
        i = i + 1
        call get_command_argument(i, arg)
        read (arg, *, iostat=code) k
        if (code /= 0 .or. k < 0) then
           call quit(2, 'bad value for ' // trim(opt) // ':', arg)
        else
           if (trim(opt) == '--iters') then
              iters = k
           else
              nbytes = k
           end if
        end if
     case ('--print-hosts')
        print_hosts = .true.
     case ('-h', '--help')
        call quit(0, '', '')
     case default
        call quit(2, 'unknown option', arg)
     end select
     i = i + 1
  end do
  ! Help and errors end the run here, on every rank (all parse the same
  ! arguments).  stop 2 ends the whole simulator under SMPI (libgfortran
  ! calls exit), which is what a failed start should do anyway.
  if (quit_code >= 0) then
     call MPI_Finalize(ierr)
     if (quit_code == 2) stop 2
  end if
  if (quit_code >= 0) stop

  if (print_hosts) then
     call MPI_Get_processor_name(host, plen, ierr)
     write (*, '(A,I0,A,A)') 'rank ', rank, ' host ', host(1:plen)
     flush (6)
  end if

  ! Directions 0/1 go down/up the first dimension, 2/3 the second; a face
  ! travelling in direction k carries tag k and arrives from ieor(k, 1).
  dims = 0
  call MPI_Dims_create(nprocs, 2, dims, ierr)
  c(1) = rank / dims(2)
  c(2) = mod(rank, dims(2))
  do k = 0, 3
     n = c
     d = ishft(k, -1) + 1
     n(d) = n(d) + 2 * mod(k, 2) - 1
     if (n(1) < 0 .or. n(1) >= dims(1) .or. n(2) < 0 .or. n(2) >= dims(2)) then
        peer(k) = -1
     else
        peer(k) = n(1) * dims(2) + n(2)
     end if
  end do

  nwords = max(1, (nbytes + 3) / 4)
  allocate (sbuf(nwords, 0:3), rbuf(nwords, 0:3))
  sbuf = 0
  rbuf = 0
  mine = 0
  do it = 0, iters - 1
     nreq = 0
     do k = 0, 3
        if (peer(k) >= 0) then
           nreq = nreq + 1
           call MPI_Irecv(rbuf(1, k), nwords, MPI_INTEGER, peer(k), ieor(k, 1), &
                          MPI_COMM_WORLD, reqs(nreq), ierr)
        end if
     end do
     do k = 0, 3
        if (peer(k) >= 0) then
           nreq = nreq + 1
           sbuf(1, k) = stamp(it, rank, peer(k), k)
           call MPI_Isend(sbuf(1, k), nwords, MPI_INTEGER, peer(k), k, &
                          MPI_COMM_WORLD, reqs(nreq), ierr)
        end if
     end do
     call MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE, ierr)
     do k = 0, 3
        if (peer(k) >= 0) then
           mine(1) = mine(1) + rbuf(1, k)
           if (rbuf(1, k) /= stamp(it, peer(k), rank, ieor(k, 1))) mine(2) = mine(2) + 1
        end if
     end do
  end do
  deallocate (sbuf, rbuf)

  call MPI_Reduce(mine, total, 2, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     if (total(2) == 0) then
        write (*, '(A,I0)') 'halo2d-f: ok ', total(1)
     else
        write (*, '(A,I0,A)') 'halo2d-f: FAILED ', total(2), ' messages with a wrong stamp'
     end if
     flush (6)
  end if
  call MPI_Finalize(ierr)
  if (rank == 0 .and. total(2) /= 0) stop 1

contains

  ! What the message of iteration it from rank a to rank b with tag t
  ! carries: a hash below 2^31, computed in 64 bits without overflow.
  integer function stamp(it, a, b, t)
    integer, intent(in) :: it, a, b, t
    integer(kind=8) :: h
    h = mod(int(it, 8) * 1000003_8 + 12345_8, 2147483647_8)
    h = mod(h * 48271_8 + int(a, 8), 2147483647_8)
    h = mod(h * 48271_8 + int(b, 8), 2147483647_8)
    h = mod(h * 48271_8 + int(t, 8), 2147483647_8)
    stamp = int(h)
  end function stamp

  ! Rank 0 explains why the run ends (usage for code 0); the caller ends it.
  subroutine quit(code, what, arg)
    use iso_fortran_env, only: error_unit
    integer, intent(in) :: code
    character(len=*), intent(in) :: what, arg
    quit_code = code
    if (rank /= 0) return
    if (code == 0) then
       write (*, '(A)') 'usage: halo2d-f [--iters N] [--bytes B] [--print-hosts] [-h]', &
            '2-D 5-point halo: four faces of --bytes per iteration', &
            '  --iters N      iterations (default 20)', &
            '  --bytes B      face size in bytes, rounded up to 4 (default 262144)', &
            '  --print-hosts  every rank prints "rank R host NAME"'
       flush (6)
    else
       write (error_unit, '(A)') 'halo2d-f: ' // what // ' ''' // trim(arg) // ''' (try -h)'
    end if
  end subroutine quit

end program halo2d_f
