! The Fortran twin of solver.c: LIKWID's Fortran marker API (module likwid).
! Tags are passed as fixed-length CHARACTER variables, so they reach LIKWID
! blank-padded -- the case the shim must trim. Regions: "init" (once),
! "solve-step" (steps times on every thread), "io phase" (once).
program solver
  use likwid
  use omp_lib
  implicit none
  integer, parameter :: n = 100000
  integer, parameter :: steps = 20
  double precision, allocatable :: x(:)
  character(len=16) :: tag_init, tag_step, tag_io
  double precision :: total
  integer :: i, s

  tag_init = 'init'
  tag_step = 'solve-step'
  tag_io = 'io phase'
  allocate(x(n))

  call likwid_markerInit()

  call likwid_markerStartRegion(tag_init)
  do i = 1, n
    x(i) = dble(mod(i - 1, 97)) / 97.0d0
  end do
  call likwid_markerStopRegion(tag_init)

  !$omp parallel private(s)
  call likwid_markerThreadInit()
  do s = 0, steps - 1
    call likwid_markerStartRegion(tag_step)
    !$omp do schedule(static)
    do i = 1, n
      x(i) = 0.5d0 * x(i) + 0.25d0 * dble(mod(i - 1 + s, 13))
    end do
    !$omp end do
    call likwid_markerStopRegion(tag_step)
  end do
  !$omp end parallel

  call likwid_markerStartRegion(tag_io)
  total = 0.0d0
  do i = 1, n
    total = total + x(i)
  end do
  write(*, '(A,I0,A,I0,A,F0.6)') 'solver: n=', n, ' steps=', steps, ' checksum=', total
  call likwid_markerStopRegion(tag_io)

  call likwid_markerClose()
  deallocate(x)
end program solver
