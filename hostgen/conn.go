package hostgen

import (
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"graphcc/namespace"
)

// This file is the host's NIC: a raw AF_PACKET socket bound to one
// interface, opened inside the host's network namespace, read and written
// through the runtime's poller so that deadlines and Close stop a blocked
// reader.

// RecvBuffer is the receive buffer a Conn asks for, bytes (SO_RCVBUFFORCE as
// root, else SO_RCVBUF capped by net.core.rmem_max).
const RecvBuffer = 4 << 20

// Conn is a raw packet socket bound to one network interface: it reads
// every IPv4 frame the interface receives, whatever its destination MAC
// (frames for other hosts included), and not the frames sent through it.
// One goroutine may read while others write; writes are serialized.
type Conn struct {
	name    string // "netns/ifname", for errors
	f       *os.File
	rc      syscall.RawConn
	ifindex int
	mac     net.HardwareAddr
	closed  atomic.Bool

	// Reader state, used by readFn: one reader at a time.
	rbuf    []byte
	rn      int
	rerr    error
	from    unix.RawSockaddrLinklayer
	fromLen uint32
	readFn  func(fd uintptr) bool

	wmu     sync.Mutex
	wbuf    []byte
	werr    error
	writeFn func(fd uintptr) bool
}

// Open opens a packet socket on interface ifname of the named network
// namespace netnsName ("" for the caller's). The socket is created and bound
// on a locked OS thread switched into the namespace, and keeps the
// namespace after the thread switches back.
func Open(netnsName, ifname string) (*Conn, error) {
	name := ifname
	if netnsName != "" {
		name = netnsName + "/" + ifname
	}
	var (
		fd  int
		ifi *net.Interface
	)
	open := func() error {
		var err error
		if ifi, err = net.InterfaceByName(ifname); err != nil {
			return err
		}
		fd, err = packetSocket(ifi.Index)
		return err
	}
	var err error
	if netnsName == "" {
		err = open()
	} else {
		err = namespace.DoNamed(netnsName, open)
	}
	if err != nil {
		return nil, fmt.Errorf("open packet socket on %s: %w", name, err)
	}
	c, err := newConn(fd, name)
	if err != nil {
		return nil, err
	}
	c.ifindex = ifi.Index
	c.mac = ifi.HardwareAddr
	return c, nil
}

// packetSocket returns a non-blocking AF_PACKET socket bound to interface
// ifindex for IPv4 frames, ignoring outgoing ones.
func packetSocket(ifindex int) (int, error) {
	// Protocol 0 receives nothing until bind names the protocol and the
	// interface, so no frame of another interface slips in.
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	sa := &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_IP), Ifindex: ifindex}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("bind to interface %d: %w", ifindex, err)
	}
	// Best effort: kernels before 4.20 lack it, and readFn drops outgoing
	// frames anyway.
	_ = unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_IGNORE_OUTGOING, 1)
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, RecvBuffer) != nil {
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, RecvBuffer)
	}
	return fd, nil
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// newConn wraps non-blocking datagram socket fd (a packet socket, or any
// datagram socket in tests) for the runtime's poller. It takes ownership of
// fd.
func newConn(fd int, name string) (*Conn, error) {
	f := os.NewFile(uintptr(fd), "packet:"+name)
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open packet socket on %s: %w", name, err)
	}
	c := &Conn{name: name, f: f, rc: rc}
	c.readFn = c.read
	c.writeFn = c.write
	return c, nil
}

// read is the body of ReadFrame under the poller: false asks the poller to
// wait for the socket to become readable.
func (c *Conn) read(fd uintptr) bool {
	for {
		c.fromLen = uint32(unsafe.Sizeof(c.from))
		n, _, errno := unix.Syscall6(unix.SYS_RECVFROM, fd,
			uintptr(unsafe.Pointer(unsafe.SliceData(c.rbuf))), uintptr(len(c.rbuf)), unix.MSG_TRUNC,
			uintptr(unsafe.Pointer(&c.from)), uintptr(unsafe.Pointer(&c.fromLen)))
		switch errno {
		case 0:
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		default:
			c.rerr = errno
			return true
		}
		if c.from.Family == unix.AF_PACKET && c.from.Pkttype == unix.PACKET_OUTGOING {
			continue // our own frames, if PACKET_IGNORE_OUTGOING is missing
		}
		if int(n) > len(c.rbuf) {
			continue // truncated: longer than any testbed frame
		}
		c.rn = int(n)
		return true
	}
}

// ReadFrame reads the next frame into buf and returns its length. It blocks
// until a frame arrives, the read deadline passes (an error that
// errors.Is(err, os.ErrDeadlineExceeded)) or the Conn is closed (net.ErrClosed),
// as net.Conn's Read does; it takes no context for that reason: cancel a
// reader with SetReadDeadline or Close. Frames longer than buf are dropped.
// Only one goroutine may read at a time.
func (c *Conn) ReadFrame(buf []byte) (int, error) {
	if len(buf) == 0 {
		return 0, fmt.Errorf("read %s: empty buffer", c.name)
	}
	c.rbuf, c.rerr = buf, nil
	err := c.rc.Read(c.readFn)
	c.rbuf = nil
	if err == nil {
		err = c.rerr
	}
	if err != nil {
		if c.closed.Load() {
			err = net.ErrClosed
		}
		return 0, fmt.Errorf("read %s: %w", c.name, err)
	}
	return c.rn, nil
}

// write is the body of WriteFrame under the poller.
func (c *Conn) write(fd uintptr) bool {
	for {
		_, _, errno := unix.Syscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(c.wbuf))), uintptr(len(c.wbuf)))
		switch errno {
		case 0:
			c.werr = nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		default:
			c.werr = errno
		}
		return true
	}
}

// WriteFrame sends frame on the interface. It waits while the socket's send
// buffer is full. An error that errors.Is(err, unix.ENOBUFS) means the
// interface dropped the frame, as a NIC with a full queue would; the Conn is
// still usable.
func (c *Conn) WriteFrame(frame []byte) error {
	if len(frame) == 0 {
		return fmt.Errorf("write %s: empty frame", c.name)
	}
	c.wmu.Lock()
	c.wbuf, c.werr = frame, nil
	err := c.rc.Write(c.writeFn)
	if err == nil {
		err = c.werr
	}
	c.wbuf = nil
	c.wmu.Unlock()
	if err != nil {
		if c.closed.Load() {
			err = net.ErrClosed
		}
		return fmt.Errorf("write %s: %w", c.name, err)
	}
	return nil
}

// SetReadDeadline sets the time after which a blocked or later ReadFrame
// fails; the zero time clears it.
func (c *Conn) SetReadDeadline(t time.Time) error {
	if err := c.f.SetReadDeadline(t); err != nil {
		return fmt.Errorf("set read deadline on %s: %w", c.name, err)
	}
	return nil
}

// HardwareAddr returns the interface's MAC address.
func (c *Conn) HardwareAddr() net.HardwareAddr { return c.mac }

// Index returns the interface's index in its namespace.
func (c *Conn) Index() int { return c.ifindex }

// Close closes the socket; a blocked ReadFrame returns net.ErrClosed.
func (c *Conn) Close() error {
	c.closed.Store(true)
	if err := c.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", c.name, err)
	}
	return nil
}
