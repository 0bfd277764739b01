package namespace

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/vishvananda/netns"
)

// OnLockedThread runs fn on a locked OS thread and puts the thread back in
// the namespace it started in afterwards, so fn may switch namespaces
// freely.
func OnLockedThread(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			errc <- fmt.Errorf("current netns: %w", err)
			return // the locked thread dies with the goroutine
		}
		defer orig.Close()
		ferr := fn()
		if err := netns.Set(orig); err != nil {
			errc <- errors.Join(ferr, fmt.Errorf("restore netns: %w", err))
			return // left locked: the thread is not reused
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}

// Do runs fn on a locked OS thread that has entered the namespace ns.
// Sockets fn creates stay in ns after it returns; processes it starts are
// born in ns. fn must not start goroutines that expect to run in ns.
func Do(ns netns.NsHandle, fn func() error) error {
	return OnLockedThread(func() error {
		if err := netns.Set(ns); err != nil {
			return fmt.Errorf("enter netns: %w", err)
		}
		return fn()
	})
}

// DoNamed is Do for the named namespace name (as `ip netns` names them);
// "" runs fn in the caller's namespace, on a locked thread all the same.
func DoNamed(name string, fn func() error) error {
	if name == "" {
		return OnLockedThread(fn)
	}
	h, err := netns.GetFromName(name)
	if err != nil {
		return fmt.Errorf("open netns %s: %w", name, err)
	}
	defer h.Close()
	if err := Do(h, fn); err != nil {
		return fmt.Errorf("netns %s: %w", name, err)
	}
	return nil
}

// Create creates the named network namespace name (bound under /run/netns,
// visible to `ip netns`) and returns a handle to it, which the caller
// closes. The calling goroutine's namespace is unchanged.
func Create(name string) (netns.NsHandle, error) {
	var h netns.NsHandle
	err := OnLockedThread(func() error {
		var err error
		h, err = netns.NewNamed(name) // switches this thread into it
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("create netns %s: %w", name, err)
	}
	return h, nil
}

// Delete removes the named namespace name; one that does not exist counts
// as removed. The kernel deletes the namespace's links with it once no
// process is left in it.
func Delete(name string) error {
	err := netns.DeleteNamed(name)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("delete netns %s: %w", name, err)
	}
	return nil
}
