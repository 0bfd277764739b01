package hostgen

import (
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// waker is the send loop's alarm clock: a timerfd read through the
// runtime's poller. Go's own timers fire about a millisecond late for
// shorter waits (the poller waits in whole milliseconds), and sleeping on
// the thread (nanosleep) holds a P until sysmon notices, starving the
// receive loops; a timerfd fires on a high-resolution kernel timer with no
// slack and parks only the goroutine. Any goroutine may arm it; one waits.
type waker struct {
	f      *os.File
	rc     syscall.RawConn
	fd     int
	buf    [8]byte
	readFn func(fd uintptr) bool
	err    error
}

func newWaker() (*waker, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("timerfd: %w", err)
	}
	f := os.NewFile(uintptr(fd), "timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("timerfd: %w", err)
	}
	w := &waker{f: f, rc: rc, fd: fd}
	w.readFn = w.read
	return w, nil
}

// arm makes the waker fire after d (at once if d <= 0); a later arm
// replaces an earlier one.
func (w *waker) arm(d time.Duration) {
	if d <= 0 {
		d = 1 // 0 would disarm
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	_ = unix.TimerfdSettime(w.fd, 0, &spec, nil) // cannot fail on a valid timerfd and spec
}

// disarm stops the waker.
func (w *waker) disarm() {
	var spec unix.ItimerSpec
	_ = unix.TimerfdSettime(w.fd, 0, &spec, nil)
}

func (w *waker) read(fd uintptr) bool {
	_, _, errno := unix.Syscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&w.buf[0])), uintptr(len(w.buf)))
	switch errno {
	case 0:
		w.err = nil
	case unix.EAGAIN:
		return false
	default:
		w.err = errno
	}
	return true
}

// wait blocks until the waker fires.
func (w *waker) wait() error {
	err := w.rc.Read(w.readFn)
	if err == nil {
		err = w.err
	}
	if err != nil {
		return fmt.Errorf("timerfd: %w", err)
	}
	return nil
}

func (w *waker) close() error { return w.f.Close() }
