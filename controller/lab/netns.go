package lab

// This file holds the namespace and link primitives the lab lifecycle is
// built on.

import (
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"graphcc/namespace"
)

// NetnsDir is where named network namespaces are bound, as `ip netns` does.
const NetnsDir = "/run/netns"

// OpenNetns returns a handle to the existing named namespace name.
func OpenNetns(name string) (netns.NsHandle, error) {
	h, err := netns.GetFromName(name)
	if err != nil {
		return 0, fmt.Errorf("open netns %s: %w", name, err)
	}
	return h, nil
}

// NetnsExists reports whether the named namespace name exists.
func NetnsExists(name string) bool {
	_, err := os.Stat(filepath.Join(NetnsDir, name))
	return err == nil
}

// Veth is one end of a veth pair: its name inside namespace NS (0 for the
// namespace of the caller).
type Veth struct {
	Name string
	NS   netns.NsHandle
}

// CreateVeth creates a veth pair with ends a and b, each moved into its
// namespace and brought up. Like containerlab, it creates the pair in the
// caller's namespace under temporary names, moves each end, and renames it
// there, so names may repeat across namespaces. On error nothing is left.
func CreateVeth(a, b Veth, tmpPrefix string) (err error) {
	tmpA, tmpB := tmpPrefix+"a", tmpPrefix+"b"
	if len(tmpA) > 15 || len(a.Name) > 15 || len(b.Name) > 15 {
		return fmt.Errorf("create veth %s-%s: interface names are at most 15 bytes", a.Name, b.Name)
	}
	la := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: tmpA}, PeerName: tmpB}
	if err := netlink.LinkAdd(la); err != nil {
		return fmt.Errorf("create veth %s-%s: %w", a.Name, b.Name, err)
	}
	defer func() {
		if err != nil { // deleting one end deletes the pair, wherever it is
			for _, end := range []struct {
				name string
				ns   netns.NsHandle
			}{{tmpA, 0}, {a.Name, a.NS}, {tmpA, a.NS}} {
				if h, herr := handle(end.ns); herr == nil {
					if l, lerr := h.LinkByName(end.name); lerr == nil {
						h.LinkDel(l)
					}
					h.Close()
				}
			}
		}
	}()
	for _, end := range []struct {
		tmp string
		v   Veth
	}{{tmpA, a}, {tmpB, b}} {
		if err := moveAndRename(end.tmp, end.v); err != nil {
			return fmt.Errorf("create veth %s-%s: %w", a.Name, b.Name, err)
		}
	}
	return nil
}

// handle returns a netlink handle in ns (0: the caller's namespace).
func handle(ns netns.NsHandle) (*netlink.Handle, error) {
	if ns == 0 {
		return netlink.NewHandle()
	}
	return netlink.NewHandleAt(ns)
}

func moveAndRename(tmp string, v Veth) error {
	l, err := netlink.LinkByName(tmp)
	if err != nil {
		return fmt.Errorf("find %s: %w", tmp, err)
	}
	if v.NS != 0 {
		if err := netlink.LinkSetNsFd(l, int(v.NS)); err != nil {
			return fmt.Errorf("move %s: %w", tmp, err)
		}
	}
	h, err := handle(v.NS)
	if err != nil {
		return err
	}
	defer h.Close()
	if l, err = h.LinkByName(tmp); err != nil {
		return fmt.Errorf("find %s after the move: %w", tmp, err)
	}
	if err := h.LinkSetName(l, v.Name); err != nil {
		return fmt.Errorf("rename %s to %s: %w", tmp, v.Name, err)
	}
	if err := h.LinkSetUp(l); err != nil {
		return fmt.Errorf("set %s up: %w", v.Name, err)
	}
	if err := txChecksumOff(v); err != nil {
		return fmt.Errorf("turn TX checksum offload off on %s: %w", v.Name, err)
	}
	return nil
}

// ethtool ioctl constants (linux/ethtool.h).
const (
	ethtoolGTXCSUM = 0x16 // get TX checksum offload
	ethtoolSTXCSUM = 0x17 // set TX checksum offload
)

// ethtoolValue is struct ethtool_value.
type ethtoolValue struct {
	cmd  uint32
	data uint32
}

// ifreqData is struct ifreq with a pointer in its union, as SIOCETHTOOL
// takes it.
type ifreqData struct {
	name [unix.IFNAMSIZ]byte
	data unsafe.Pointer
	_    [24 - unsafe.Sizeof(unsafe.Pointer(nil))]byte
}

// txChecksumOff turns TX checksum offload off on v, inside its namespace:
// a veth that carries frames written to raw sockets would otherwise pass
// them on with checksums never filled in.
func txChecksumOff(v Veth) error {
	return ethtool(v, ethtoolSTXCSUM, 0, nil)
}

// TXChecksumOffload reports whether TX checksum offload is on for v.
func TXChecksumOffload(v Veth) (bool, error) {
	var on uint32
	err := ethtool(v, ethtoolGTXCSUM, 0, &on)
	return on != 0, err
}

func ethtool(v Veth, cmd, data uint32, out *uint32) error {
	run := func() error {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		val := ethtoolValue{cmd: cmd, data: data}
		var req ifreqData
		copy(req.name[:], v.Name)
		req.data = unsafe.Pointer(&val)
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCETHTOOL, uintptr(unsafe.Pointer(&req))); errno != 0 {
			return errno
		}
		if out != nil {
			*out = val.data
		}
		return nil
	}
	if v.NS == 0 {
		return run()
	}
	return namespace.OnLockedThread(func() error {
		if err := netns.Set(v.NS); err != nil {
			return err
		}
		return run()
	})
}
