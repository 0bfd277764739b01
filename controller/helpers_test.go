package controller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/vishvananda/netlink"

	"graphcc/controller/lab"
	"graphcc/topo"

	"graphcc/internal/privtest"
)

// Helpers for the tests that run workloads on a real lab (built without
// switches). They mirror package lab's own test helpers through its
// exported API.

// requireRoot skips a test that needs root (privtest.Root).
func requireRoot(t *testing.T) { privtest.Root(t) }

// labPlan returns the plan of a Clos for a lab named uniquely for this
// process and tag.
func labPlan(tb testing.TB, tag string, leaves, spines, hostsPerLeaf int) *lab.Plan {
	tb.Helper()
	c := topo.DefaultClos()
	c.Leaves, c.Spines, c.HostsPerLeaf = leaves, spines, hostsPerLeaf
	f, err := topo.Clos(c)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := lab.NewPlan(fmt.Sprintf("t%d%s", os.Getpid()%100000, tag), f)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// upLab runs lab.Up with cfg (Dir defaults to a temporary directory),
// after registering a cleanup that takes the lab down and checks nothing
// is left.
func upLab(t *testing.T, cfg lab.Config) (*lab.Lab, error) {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	var links []lab.LinkState // the links Up recorded, for the check
	name, dir := cfg.Plan.Lab, cfg.Dir
	t.Cleanup(func() {
		if err := lab.Down(context.Background(), name, dir); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		assertLabGone(t, cfg.Plan, dir, links)
	})
	l, err := lab.Up(t.Context(), cfg)
	if err == nil {
		links = l.State().Links
	}
	return l, err
}

// assertLabGone checks that nothing of the lab of plan p is left: no
// namespace, none of the temporary links Up made in the root namespace,
// no state file.
func assertLabGone(t *testing.T, p *lab.Plan, dir string, links []lab.LinkState) {
	t.Helper()
	for _, ns := range p.Namespaces() {
		if lab.NetnsExists(ns) {
			t.Errorf("namespace %s left", ns)
		}
	}
	for _, ls := range links {
		for _, name := range []string{ls.Tmp + "a", ls.Tmp + "b"} {
			if _, err := netlink.LinkByName(name); err == nil {
				t.Errorf("link %s left in the root namespace", name)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, lab.StateFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state file left (%v)", err)
	}
}

// nsHandle returns a netlink handle inside the named namespace ns, closed
// when t ends.
func nsHandle(t *testing.T, ns string) *netlink.Handle {
	t.Helper()
	nh, err := lab.OpenNetns(ns)
	if err != nil {
		t.Fatal(err)
	}
	defer nh.Close()
	h, err := netlink.NewHandleAt(nh)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}
