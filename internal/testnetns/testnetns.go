// Package testnetns gives a privileged test a network namespace of its own,
// deleted when the test ends (as cilium/ebpf's testutils.NewNetNS does).
// Package namespace's own tests cannot use it: it imports namespace.
package testnetns

import (
	"fmt"
	"os"
	"testing"

	"github.com/vishvananda/netns"

	"graphcc/namespace"
)

// New creates a fresh network namespace for tb, named prefix, the test
// process's ID and tag (prefixes keep the packages' tests apart), and
// deletes it, with every link in it, when tb ends.
func New(tb testing.TB, prefix, tag string) (string, netns.NsHandle) {
	tb.Helper()
	name := fmt.Sprintf("%s%d%s", prefix, os.Getpid()%100000, tag)
	tb.Cleanup(func() {
		if err := namespace.Delete(name); err != nil {
			tb.Error(err)
		}
	})
	h, err := namespace.Create(name)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.Close() })
	return name, h
}
