package lab

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// MaxRealtime is the highest SCHED_FIFO priority Linux accepts
// (sched_get_priority_max(SCHED_FIFO)); 1 is the lowest.
const MaxRealtime = 99

// Scheduling names as SchedName and Lab.SwitchSched give them.
const (
	SchedOther = "other" // every thread at normal scheduling (SCHED_OTHER)
	SchedMixed = "mixed" // neither every thread at normal scheduling nor every one at one SCHED_FIFO priority
)

// CheckRealtime returns an error unless prio is 0 (normal scheduling) or a
// SCHED_FIFO priority, 1 to MaxRealtime.
func CheckRealtime(prio int) error {
	if prio < 0 || prio > MaxRealtime {
		return fmt.Errorf("real-time priority %d is outside 1 to %d (0: normal scheduling)", prio, MaxRealtime)
	}
	return nil
}

// SchedName names the switches' scheduling for a real-time priority prio
// as the lab records it: SchedOther for 0, "fifo:PRIO" otherwise (chrt's
// policy name and priority).
func SchedName(prio int) string {
	if prio == 0 {
		return SchedOther
	}
	return "fifo:" + strconv.Itoa(prio)
}

// ThreadSched is one thread's scheduling policy and priority.
type ThreadSched struct {
	TID      int
	Policy   uint32 // unix.SCHED_NORMAL, unix.SCHED_FIFO, …
	Priority uint32 // the real-time priority; 0 under SCHED_OTHER
}

// processThreads returns the thread IDs of process pid (/proc/PID/task).
func processThreads(pid int) ([]int, error) {
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// ProcessSched returns the scheduling of every thread of process pid. A
// thread that ends while it reads is left out.
func ProcessSched(pid int) ([]ThreadSched, error) {
	tids, err := processThreads(pid)
	if err != nil {
		return nil, fmt.Errorf("threads of process %d: %w", pid, err)
	}
	out := make([]ThreadSched, 0, len(tids))
	for _, tid := range tids {
		a, err := unix.SchedGetAttr(tid, 0)
		if errors.Is(err, unix.ESRCH) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("process %d thread %d: sched_getattr: %w", pid, tid, err)
		}
		out = append(out, ThreadSched{TID: tid, Policy: a.Policy, Priority: a.Priority})
	}
	return out, nil
}

// SetProcessFIFO puts every thread of process pid that is not there yet
// at SCHED_FIFO priority prio (1 to MaxRealtime), and returns how many it
// changed. Threads the process makes later inherit their creator's
// scheduling; a thread made while it scans, by a creator it had not
// changed yet, would not, so it scans again until a pass changes nothing
// (at most maxSchedPasses passes). A thread that ends meanwhile is
// skipped. Without CAP_SYS_NICE (root) the error wraps unix.EPERM and says
// so.
func SetProcessFIFO(pid, prio int) (int, error) {
	if prio < 1 || prio > MaxRealtime {
		return 0, fmt.Errorf("SCHED_FIFO priority %d is outside 1 to %d", prio, MaxRealtime)
	}
	total := 0
	for range maxSchedPasses {
		n, err := setFIFOPass(pid, prio)
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
	return total, fmt.Errorf("process %d: threads still not at SCHED_FIFO priority %d after %d passes", pid, prio, maxSchedPasses)
}

// maxSchedPasses bounds SetProcessFIFO's scans of a process's threads.
const maxSchedPasses = 8

// setFIFOPass is one scan of SetProcessFIFO.
func setFIFOPass(pid, prio int) (int, error) {
	threads, err := ProcessSched(pid)
	if err != nil {
		return 0, err
	}
	changed := 0
	for _, th := range threads {
		if th.Policy == unix.SCHED_FIFO && th.Priority == uint32(prio) {
			continue
		}
		err := unix.SchedSetAttr(th.TID, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: uint32(prio)}, 0)
		switch {
		case errors.Is(err, unix.ESRCH):
			continue
		case errors.Is(err, unix.EPERM):
			return changed, fmt.Errorf("process %d thread %d: SCHED_FIFO priority %d: %w (real-time scheduling needs root or CAP_SYS_NICE, "+
				"and a cgroup with real-time runtime)", pid, th.TID, prio, err)
		case err != nil:
			return changed, fmt.Errorf("process %d thread %d: SCHED_FIFO priority %d: %w", pid, th.TID, prio, err)
		}
		changed++
	}
	return changed, nil
}

// summarizeSched names the scheduling of threads: SchedOther if every one
// is at SCHED_OTHER, "fifo:PRIO" if every one is at SCHED_FIFO priority
// PRIO, SchedMixed otherwise (and for no threads).
func summarizeSched(threads []ThreadSched) string {
	if len(threads) == 0 {
		return SchedMixed
	}
	first := threads[0]
	for _, th := range threads[1:] {
		if th.Policy != first.Policy || th.Priority != first.Priority {
			return SchedMixed
		}
	}
	switch {
	case first.Policy == unix.SCHED_NORMAL:
		return SchedOther
	case first.Policy == unix.SCHED_FIFO && first.Priority >= 1:
		return SchedName(int(first.Priority))
	}
	return SchedMixed
}

// ApplyRealtime puts every thread of every running switch at the lab's
// recorded real-time priority (State.Realtime; with 0 it does nothing) and
// returns how many threads it changed: 0 unless a switch made threads
// since Up set them (they inherit their creator's scheduling) or someone
// changed them. Up calls it once the switches listen; testbed run calls it
// again before a run.
func (l *Lab) ApplyRealtime() (int, error) {
	prio := l.state.Realtime
	if prio == 0 {
		return 0, nil
	}
	total := 0
	var errs []error
	for _, ss := range l.state.Switches {
		if !processAlive(ss.PID, ss.StartTime) {
			errs = append(errs, fmt.Errorf("switch %s: process %d is not running", ss.Name, ss.PID))
			continue
		}
		n, err := SetProcessFIFO(ss.PID, prio)
		total += n
		if err != nil {
			errs = append(errs, fmt.Errorf("switch %s: %w", ss.Name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return total, fmt.Errorf("lab %s: real-time priority %d: %w", l.state.Lab, prio, err)
	}
	return total, nil
}

// SwitchSched reads the scheduling of every thread of every running
// switch and names it as summarizeSched does: "fifo:10" when every
// thread is at SCHED_FIFO 10, SchedOther when none is real-time,
// SchedMixed otherwise. It also returns the number of threads read.
func (l *Lab) SwitchSched() (string, int, error) {
	var all []ThreadSched
	for _, ss := range l.state.Switches {
		th, err := ProcessSched(ss.PID)
		if err != nil {
			return "", 0, fmt.Errorf("lab %s: switch %s: %w", l.state.Lab, ss.Name, err)
		}
		all = append(all, th...)
	}
	return summarizeSched(all), len(all), nil
}
