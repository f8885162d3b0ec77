! A Fortran program instrumented with LIKWID's marker API (module likwid,
! the real one), run under sim-perfctr: the gfortran entry points of the
! simulation receive blank-padded tags with their hidden lengths.
program sim_app_f
  use likwid
  implicit none
  character(len=16) :: tag = 'solve-step'
  integer :: i, nev, cnt
  double precision :: ev(10), t
  call likwid_markerInit()
  call likwid_markerRegisterRegion('init')
  call likwid_markerStartRegion('init')
  call likwid_markerStopRegion('init')
  do i = 1, 3
    call likwid_markerStartRegion(tag)
    call likwid_markerStopRegion(tag)
  end do
  nev = 10
  call likwid_markerGetRegion(tag, nev, ev, t, cnt)
  print '(a,i0,a,i0)', 'get: count ', cnt, ' events ', nev
  call likwid_markerNextGroup()
  call likwid_markerStartRegion('after switch')
  call likwid_markerStopRegion('after switch')
  call likwid_markerClose()
  print '(a)', 'sim_app_f done'
end program sim_app_f
