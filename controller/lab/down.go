package lab

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"graphcc/namespace"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// Down removes lab's namespaces, links and switch processes: what the
// state file in dir (DefaultDir(lab) if empty) lists, in reverse order of
// creation, and what a scan finds (namespaces named "<lab>-<node>" in
// NetnsDir, the lab's temporary veth names in the root namespace, and
// processes of the lab's switch binary inside its namespaces), so it also
// cleans up after a crash of Up at any point. Switch processes get SIGTERM
// and, after the lab's grace period, SIGKILL; a recorded PID is only
// signalled if the process still has the recorded start time. Anything
// already gone counts as removed; Down continues past errors and returns
// them joined. It removes the state file once everything is gone, so a
// second Down, or a Down of a lab that never existed, returns nil. The
// switch logs stay in dir.
func Down(ctx context.Context, lab, dir string) error {
	return DownLogger(ctx, lab, dir, slog.Default())
}

// DownLogger is Down with progress logged to log.
func DownLogger(ctx context.Context, lab, dir string, log *slog.Logger) error {
	if !validLabName(lab) {
		return fmt.Errorf("lab %q: invalid name", lab)
	}
	if dir == "" {
		dir = DefaultDir(lab)
	}
	unlock, err := lockDir(dir)
	switch {
	case err == nil:
		defer unlock()
	case errors.Is(err, fs.ErrNotExist): // no directory: only the scan
	default:
		return fmt.Errorf("lab %s: down: %w", lab, err)
	}
	return down(ctx, lab, dir, log)
}

// Down removes the lab (see the package function Down), and waits for the
// switch processes this process started to be reaped.
func (l *Lab) Down(ctx context.Context) error {
	if err := DownLogger(ctx, l.state.Lab, l.dir, l.base); err != nil {
		return err
	}
	return l.waitChildren(ctx)
}

// down is Down with the directory lock held (or no directory).
func down(ctx context.Context, lab, dir string, log *slog.Logger) error {
	start := time.Now()
	log = log.With("lab", lab)
	path := filepath.Join(dir, StateFile)
	st := &State{Lab: lab, StopGraceNS: int64(DefaultStopGrace)}
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		parsed, perr := ParseState(b)
		if perr != nil { // the scan still finds the namespaces and links
			log.Warn("state file unusable, scanning only", "err", perr)
			err = fmt.Errorf("lab state %s: %w", path, perr)
			// set it aside, so that it is reported once and the next Down is clean
			if rerr := os.Rename(path, path+".corrupt"); rerr != nil {
				err = errors.Join(err, rerr)
			}
			break
		}
		if parsed.Lab != lab {
			return fmt.Errorf("lab %s: down: %s describes lab %s", lab, path, parsed.Lab)
		}
		st = parsed
	case errors.Is(err, fs.ErrNotExist):
		err = nil
	default:
		err = fmt.Errorf("lab state: %w", err)
	}
	errs := []error{err}
	errs = append(errs, stopSwitches(ctx, st, log))
	namespaces, serr := scanNetns(lab)
	errs = append(errs, serr)
	for _, n := range slices.Backward(st.Namespaces) {
		if !slices.Contains(namespaces, n) && NetnsExists(n) {
			namespaces = append(namespaces, n)
		}
	}
	errs = append(errs, stopStrays(ctx, st, namespaces, log))
	errs = append(errs, removeRootLinks(st))
	// reverse creation order: hosts were created after switches
	slices.SortStableFunc(namespaces, func(a, b string) int {
		return slices.Index(st.Namespaces, b) - slices.Index(st.Namespaces, a)
	})
	for _, n := range namespaces {
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("lab %s: down: %w", lab, err))
			break
		}
		errs = append(errs, namespace.Delete(n))
	}
	err = errors.Join(errs...)
	if err == nil {
		if err = removeState(dir); err == nil {
			os.Remove(filepath.Join(dir, cliStubFile))
		}
	}
	if err != nil {
		return fmt.Errorf("lab %s: down: %w", lab, err)
	}
	log.Info("lab down", "namespaces", len(namespaces), "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// stopSwitches stops every recorded switch process, all at once.
func stopSwitches(ctx context.Context, st *State, log *slog.Logger) error {
	errs := make([]error, len(st.Switches))
	var wg sync.WaitGroup
	for i, ss := range st.Switches {
		if ss.PID == 0 {
			continue
		}
		wg.Go(func() {
			if err := stopProcess(ctx, ss.PID, ss.StartTime, time.Duration(st.StopGraceNS)); err != nil {
				errs[i] = fmt.Errorf("switch %s: stop process %d: %w", ss.Name, ss.PID, err)
				return
			}
			log.Debug("switch stopped", "switch", ss.Name, "pid", ss.PID)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// stopStrays stops processes of the lab's switch binary inside the lab's
// namespaces that the state does not know (Up crashed between starting one
// and recording its PID, or the state file is unreadable). Without a
// recorded binary, the switch binary is DefaultSwitchBinary as found on
// PATH, and any process named DefaultSwitchBinary. Other processes in the
// namespaces are left alone but logged: they keep their namespace alive
// after Down.
func stopStrays(ctx context.Context, st *State, namespaces []string, log *slog.Logger) error {
	inodes := map[uint64]string{}
	for _, n := range namespaces {
		var s unix.Stat_t
		if err := unix.Stat(filepath.Join(NetnsDir, n), &s); err == nil {
			inodes[s.Ino] = n
		}
	}
	if len(inodes) == 0 {
		return nil
	}
	isSwitch := switchMatcher(st.SwitchBinary)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return fmt.Errorf("scan processes: %w", err)
	}
	var errs []error
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		link, err := os.Readlink("/proc/" + e.Name() + "/ns/net")
		if err != nil {
			continue
		}
		var ino uint64
		if _, err := fmt.Sscanf(link, "net:[%d]", &ino); err != nil {
			continue
		}
		ns, ok := inodes[ino]
		if !ok {
			continue
		}
		exe, _ := os.Readlink("/proc/" + e.Name() + "/exe")
		if !isSwitch(exe) {
			log.Warn("process left in lab namespace", "pid", pid, "exe", exe, "netns", ns)
			continue
		}
		_, start, err := procStat(pid)
		if err != nil {
			continue
		}
		log.Info("stopping unrecorded switch process", "pid", pid, "netns", ns)
		if err := stopProcess(ctx, pid, start, time.Duration(st.StopGraceNS)); err != nil {
			errs = append(errs, fmt.Errorf("netns %s: stop process %d: %w", ns, pid, err))
		}
	}
	return errors.Join(errs...)
}

// switchMatcher returns whether a process's executable (its /proc/PID/exe)
// is the lab's switch binary: bin, or, if bin is empty (a state file that
// could not be read), DefaultSwitchBinary as PATH finds it or by name.
func switchMatcher(bin string) func(exe string) bool {
	byName := bin == ""
	if byName {
		bin, _ = lookBinary("", DefaultSwitchBinary)
	}
	if bin != "" {
		if real, err := filepath.EvalSymlinks(bin); err == nil {
			bin = real
		}
	}
	return func(exe string) bool {
		return exe != "" && (exe == bin || byName && filepath.Base(exe) == DefaultSwitchBinary)
	}
}

// removeRootLinks deletes veths left in the root namespace under the lab's
// temporary names (Up crashed inside CreateVeth). The ends already moved
// into namespaces go with them.
func removeRootLinks(st *State) error {
	links, err := retryDump(netlink.LinkList)
	if err != nil {
		return fmt.Errorf("list links: %w", err)
	}
	prefix := tmpLinkPrefix(st.Lab)
	var errs []error
	for _, l := range links {
		name := l.Attrs().Name
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		err := netlink.LinkDel(l)
		if err != nil && !errors.Is(err, unix.ENODEV) {
			errs = append(errs, fmt.Errorf("delete link %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// dumpRetries is how many times retryDump runs a dump again.
const dumpRetries = 20

// retryDump runs a netlink dump (a list of links, addresses, routes …)
// again while the kernel reports it interrupted (netlink.ErrDumpInterrupted:
// the set changed during the dump, another process or lab adding or
// removing links), at most dumpRetries more times, and returns the last
// answer.
func retryDump[T any](dump func() ([]T, error)) ([]T, error) {
	for i := 0; ; i++ {
		v, err := dump()
		if !errors.Is(err, netlink.ErrDumpInterrupted) || i == dumpRetries {
			return v, err
		}
	}
}

// scanNetns returns the namespaces in NetnsDir that belong to lab.
func scanNetns(lab string) ([]string, error) {
	entries, err := os.ReadDir(NetnsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", NetnsDir, err)
	}
	var ns []string
	for _, e := range entries {
		if labNetns(lab, e.Name()) {
			ns = append(ns, e.Name())
		}
	}
	return ns, nil
}
