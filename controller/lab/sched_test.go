package lab

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestCheckRealtime(t *testing.T) {
	for _, tc := range []struct {
		prio int
		ok   bool
		name string
	}{
		{0, true, "other"},
		{1, true, "fifo:1"},
		{10, true, "fifo:10"},
		{99, true, "fifo:99"},
		{100, false, ""},
		{-1, false, ""},
	} {
		err := CheckRealtime(tc.prio)
		if (err == nil) != tc.ok {
			t.Errorf("CheckRealtime(%d) = %v, want ok %v", tc.prio, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "1 to 99") {
			t.Errorf("CheckRealtime(%d) = %q: does not give the range", tc.prio, err)
		}
		if tc.ok {
			if got := SchedName(tc.prio); got != tc.name {
				t.Errorf("SchedName(%d) = %q, want %q", tc.prio, got, tc.name)
			}
		}
	}
}

func TestSummarizeSched(t *testing.T) {
	other := ThreadSched{TID: 1, Policy: unix.SCHED_NORMAL}
	fifo10 := ThreadSched{TID: 2, Policy: unix.SCHED_FIFO, Priority: 10}
	fifo20 := ThreadSched{TID: 3, Policy: unix.SCHED_FIFO, Priority: 20}
	rr10 := ThreadSched{TID: 4, Policy: unix.SCHED_RR, Priority: 10}
	for _, tc := range []struct {
		name    string
		threads []ThreadSched
		want    string
	}{
		{"none", nil, SchedMixed},
		{"all other", []ThreadSched{other, other}, SchedOther},
		{"all fifo 10", []ThreadSched{fifo10, fifo10, fifo10}, "fifo:10"},
		{"one fifo 10", []ThreadSched{fifo10}, "fifo:10"},
		{"fifo and other", []ThreadSched{fifo10, other}, SchedMixed},
		{"two fifo priorities", []ThreadSched{fifo10, fifo20}, SchedMixed},
		{"round robin", []ThreadSched{rr10, rr10}, SchedMixed},
	} {
		if got := summarizeSched(tc.threads); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSetProcessFIFORange(t *testing.T) {
	for _, prio := range []int{0, -3, 100} {
		if _, err := SetProcessFIFO(1, prio); err == nil || !strings.Contains(err.Error(), "1 to 99") {
			t.Errorf("SetProcessFIFO(1, %d) = %v, want a range error", prio, err)
		}
	}
}

func TestParseStateRealtime(t *testing.T) {
	s := sampleState()
	s.Realtime = 0
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(`"realtime"`)) {
		t.Errorf("a lab at normal scheduling records realtime: %s", b)
	}
	got, err := ParseState(b) // a state written before the key existed reads as 0
	if err != nil || got.Realtime != 0 {
		t.Fatalf("ParseState without realtime: %+v, %v", got, err)
	}
	s.Realtime = 42
	if b, err = json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	if got, err := ParseState(b); err != nil || got.Realtime != 42 {
		t.Errorf("ParseState with realtime 42: %+v, %v", got, err)
	}
}

func TestStatusSchedText(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Status
		want string
	}{
		{"fifo as recorded", Status{Realtime: 10, Sched: "fifo:10", Threads: 92}, "fifo:10 recorded, fifo:10 now (92 threads)"},
		{"other as recorded", Status{Sched: SchedOther, Threads: 90}, "other recorded, other now (90 threads)"},
		{"threads left behind", Status{Realtime: 10, Sched: SchedMixed, Threads: 93}, "fifo:10 recorded, mixed now (93 threads); not as recorded: testbed run sets them again"},
		{"set by hand", Status{Sched: "fifo:5", Threads: 4}, "other recorded, fifo:5 now (4 threads); not as recorded: not set by the lab"},
		{"unreadable", Status{Realtime: 10, SchedErr: errors.New("gone")}, "fifo:10 recorded, unknown (gone) now (0 threads)"},
	} {
		if got := tc.s.schedText(); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestSetProcessFIFO puts a child process's threads at SCHED_FIFO and
// reads them back; it needs root (CAP_SYS_NICE).
func TestSetProcessFIFO(t *testing.T) {
	requireRoot(t)
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	pid := cmd.Process.Pid
	if th, err := ProcessSched(pid); err != nil || summarizeSched(th) != SchedOther {
		t.Fatalf("before: %+v, %v; want every thread at normal scheduling", th, err)
	}
	n, err := SetProcessFIFO(pid, 7)
	if err != nil || n != 1 {
		t.Fatalf("SetProcessFIFO = %d, %v; want 1 thread changed", n, err)
	}
	if th, err := ProcessSched(pid); err != nil || summarizeSched(th) != "fifo:7" {
		t.Errorf("after: %+v, %v; want fifo:7", th, err)
	}
	if n, err := SetProcessFIFO(pid, 7); err != nil || n != 0 {
		t.Errorf("again: %d changed, %v; want 0", n, err)
	}
	if _, err := ProcessSched(1 << 30); err == nil {
		t.Error("ProcessSched of a process that does not exist: no error")
	}
}
