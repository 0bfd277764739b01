package namespace

import (
	"fmt"
	"os"
	"testing"

	"github.com/vishvananda/netns"

	"graphcc/internal/privtest"
)

func requireRoot(t *testing.T) { privtest.Root(t) }

func TestDoNamed(t *testing.T) {
	requireRoot(t)
	name := fmt.Sprintf("gcns%d", os.Getpid()%100000)
	var created netns.NsHandle
	if err := OnLockedThread(func() error {
		var err error
		created, err = netns.NewNamed(name) // switches this thread into it
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer created.Close()
	t.Cleanup(func() { netns.DeleteNamed(name) })
	root, err := netns.Get()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var inside netns.NsHandle
	if err := DoNamed(name, func() error {
		var err error
		inside, err = netns.Get()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer inside.Close()
	if !inside.Equal(created) || inside.Equal(root) {
		t.Error("fn did not run in the named namespace")
	}
	after, err := netns.Get()
	if err != nil {
		t.Fatal(err)
	}
	defer after.Close()
	if !after.Equal(root) {
		t.Error("the caller's thread left the root namespace")
	}
	if err := DoNamed(name+"-missing", func() error { return nil }); err == nil {
		t.Error("a missing namespace was entered")
	}
	want := fmt.Errorf("boom")
	if err := DoNamed(name, func() error { return want }); err == nil || err.Error() != "netns "+name+": boom" {
		t.Errorf("fn's error came back as %v", err)
	}
}
