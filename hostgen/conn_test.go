package hostgen

import (
	"bytes"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// connPair returns two Conns joined by a datagram socket pair: what one
// writes the other reads, frame by frame, as across a link. No root needed.
func connPair(t *testing.T) (*Conn, *Conn) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newConn(fds[0], "pair/a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := newConn(fds[1], "pair/b")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

func TestConnReadWrite(t *testing.T) {
	a, b := connPair(t)
	buf := make([]byte, 2048)
	for _, msg := range [][]byte{[]byte("first"), bytes.Repeat([]byte{7}, MaxFrameLen)} {
		if err := a.WriteFrame(msg); err != nil {
			t.Fatal(err)
		}
		n, err := b.ReadFrame(buf)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf[:n], msg) {
			t.Errorf("read %d bytes, want %d", n, len(msg))
		}
	}
	// A frame longer than the buffer is dropped, not cut.
	if err := a.WriteFrame(make([]byte, 100)); err != nil {
		t.Fatal(err)
	}
	if err := a.WriteFrame([]byte("after")); err != nil {
		t.Fatal(err)
	}
	n, err := b.ReadFrame(buf[:50])
	if err != nil || string(buf[:n]) != "after" {
		t.Errorf("read %q, %v after an oversized frame", buf[:n], err)
	}
}

// TestConnUnblock checks that a deadline and Close stop a blocked reader.
func TestConnUnblock(t *testing.T) {
	a, _ := connPair(t)
	errc := make(chan error)
	read := func() { _, err := a.ReadFrame(make([]byte, 64)); errc <- err }
	go read()
	if err := a.SetReadDeadline(time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("after the deadline: %v", err)
	}
	if err := a.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	go read()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, net.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if err := a.WriteFrame([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write after Close: %v", err)
	}
}

func TestConnNoAllocs(t *testing.T) {
	a, b := connPair(t)
	frame := make([]byte, MaxFrameLen)
	buf := make([]byte, 2048)
	if n := testing.AllocsPerRun(200, func() {
		if err := a.WriteFrame(frame); err != nil {
			t.Fatal(err)
		}
		if _, err := b.ReadFrame(buf); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per frame written and read", n)
	}
}
