package lab

import (
	"fmt"
	"os"
	"testing"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"graphcc/internal/privtest"
	"graphcc/internal/testnetns"
	"graphcc/namespace"
)

// requireRoot skips a test that needs root (privtest.Root).
func requireRoot(t *testing.T) { privtest.Root(t) }

// testNetns creates a fresh named namespace for t (testnetns.New).
func testNetns(t *testing.T, tag string) (string, netns.NsHandle) {
	t.Helper()
	return testnetns.New(t, "gcct", tag)
}

func TestNetnsLifecycle(t *testing.T) {
	requireRoot(t)
	before, _ := netns.Get()
	defer before.Close()
	name, _ := testNetns(t, "l")
	if !NetnsExists(name) {
		t.Fatalf("netns %s not visible in %s", name, NetnsDir)
	}
	if now, _ := netns.Get(); !now.Equal(before) {
		t.Error("creating a netns moved the test's thread")
	}
	if err := namespace.Delete(name); err != nil {
		t.Fatal(err)
	}
	if NetnsExists(name) {
		t.Error("netns still there after delete")
	}
	if err := namespace.Delete(name); err != nil {
		t.Errorf("deleting a missing netns: %v", err)
	}
}

func TestVethBetweenNamespaces(t *testing.T) {
	requireRoot(t)
	_, a := testNetns(t, "a")
	_, b := testNetns(t, "b")
	tmp := fmt.Sprintf("gct%d", os.Getpid()%100000)
	// the same interface name on both sides: renamed inside each namespace
	if err := CreateVeth(Veth{Name: "eth1", NS: a}, Veth{Name: "eth1", NS: b}, tmp); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []netns.NsHandle{a, b} {
		h, err := netlink.NewHandleAt(ns)
		if err != nil {
			t.Fatal(err)
		}
		l, err := h.LinkByName("eth1")
		if err != nil {
			t.Fatal(err)
		}
		if l.Type() != "veth" || l.Attrs().Flags&1 == 0 { // net.FlagUp
			t.Errorf("eth1 is %s with flags %v, want an up veth", l.Type(), l.Attrs().Flags)
		}
		if on, err := TXChecksumOffload(Veth{Name: "eth1", NS: ns}); err != nil || on {
			t.Errorf("TX checksum offload on=%v err=%v, want off", on, err)
		}
		h.Close()
	}
	for _, n := range []string{tmp + "a", tmp + "b"} {
		if _, err := netlink.LinkByName(n); err == nil {
			t.Errorf("temporary link %s left in the root namespace", n)
		}
	}
	// a failing create leaves nothing behind: eth1 exists in a already
	if err := CreateVeth(Veth{Name: "eth2", NS: b}, Veth{Name: "eth1", NS: a}, tmp); err == nil {
		t.Fatal("a duplicate name inside a namespace was accepted")
	}
	h, _ := netlink.NewHandleAt(b)
	defer h.Close()
	if _, err := h.LinkByName("eth2"); err == nil {
		t.Error("eth2 left in b after a failed create")
	}
	for _, n := range []string{tmp + "a", tmp + "b"} {
		if _, err := netlink.LinkByName(n); err == nil {
			t.Errorf("temporary link %s left after a failed create", n)
		}
	}
}

func TestVethNameTooLong(t *testing.T) {
	if err := CreateVeth(Veth{Name: "an-interface-name-too-long"}, Veth{Name: "b"}, "t"); err == nil {
		t.Error("a 26-byte interface name was accepted")
	}
}
