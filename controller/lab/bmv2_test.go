package lab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"graphcc/topo"
)

func TestQueueRates(t *testing.T) {
	for _, tc := range []struct {
		name              string
		fn                func(rate, scale int64) int64
		rate, scale, want int64
	}{
		{"QueueRatePPS", QueueRatePPS, 25 * topo.Gbps, 1000, 2982}, // 25 Mbps / 8384 bits
		{"QueueRatePPS", QueueRatePPS, 100 * topo.Gbps, 1000, 11927},
		{"QueueRatePPS", QueueRatePPS, 25 * topo.Gbps, 1, 2981870},
		{"QueueRatePPS", QueueRatePPS, 1 * topo.Mbps, 1000000, 1},       // never 0
		{"ControlRatePPS", ControlRatePPS, 25 * topo.Gbps, 10000, 5208}, // 2.5 Mbps / 480 bits
		{"ControlRatePPS", ControlRatePPS, 100 * topo.Gbps, 10000, 20833},
		{"ControlRatePPS", ControlRatePPS, 25 * topo.Gbps, 1000, 52083},
		{"ControlRatePPS", ControlRatePPS, 1 * topo.Mbps, 1000000, 1}, // 1 bps / 480 bits rounds to 0: never 0
	} {
		if got := tc.fn(tc.rate, tc.scale); got != tc.want {
			t.Errorf("%s(%d, %d) = %d, want %d", tc.name, tc.rate, tc.scale, got, tc.want)
		}
	}
}

func TestQueueDepthAboveKMax(t *testing.T) {
	for _, rate := range []int64{10 * topo.Gbps, 25 * topo.Gbps, 100 * topo.Gbps, 400 * topo.Gbps} {
		d := QueueDepth(rate, 0)
		// the static kmax is Alibaba's 400 KB per 25 Gbps
		kmax := 400 * 1000 * rate / (25 * topo.Gbps)
		if d*FrameBytes <= kmax {
			t.Errorf("rate %d: depth %d packets is not above kmax %d bytes", rate, d, kmax)
		}
		// a policy's larger kmax raises the depth above it
		if d := QueueDepth(rate, 2*kmax); d*FrameBytes <= 2*kmax {
			t.Errorf("rate %d: depth %d packets is not above the policies' kmax %d bytes", rate, d, 2*kmax)
		}
	}
	if QueueDepth(25*topo.Gbps, 0) != 2*382 {
		t.Errorf("25 Gbps depth %d, want %d", QueueDepth(25*topo.Gbps, 0), 2*382)
	}
	if d := QueueDepth(25*topo.Gbps, 1_000_000); d != 2*955 {
		t.Errorf("25 Gbps depth with kmax 1 MB %d, want %d", d, 2*955)
	}
}

func TestSwitchArgs(t *testing.T) {
	sw := &SwitchState{DeviceID: 3, GRPCAddr: GRPCAddr, ThriftPort: ThriftPort,
		Ports: []PortState{{Num: 1, Iface: "p1"}, {Num: 2, Iface: "p2"}}}
	got := strings.Join(switchArgs(sw, ""), " ")
	want := "--device-id 3 -i 1@p1 -i 2@p2 --thrift-port 9090 --no-p4 -- --grpc-server-addr 127.0.0.1:9559 --priority-queues 2 --cpu-port 255"
	if got != want {
		t.Errorf("args\n%s\nwant\n%s", got, want)
	}
	if got := strings.Join(switchArgs(sw, "info"), " "); !strings.Contains(got, "--no-p4 --log-console --log-level info --") {
		t.Errorf("with logging: %s", got)
	}
}

func TestQueueCommands(t *testing.T) {
	got := queueCommands([]PortState{{Num: 1, QueueRatePPS: 2982, QueueDepth: 764, ControlRatePPS: 52083}, {Num: 2, QueueRatePPS: 11927, QueueDepth: 3054}})
	want := "set_queue_rate 2982 1\nset_queue_depth 764 1\nset_queue_rate 52083 1 1\nset_queue_rate 11927 2\nset_queue_depth 3054 2\n"
	if got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

func TestCLIOutputError(t *testing.T) {
	for _, tc := range []struct {
		out string
		bad bool
	}{
		{"Obtaining JSON from switch...\nDone\nControl utility for runtime P4 table manipulation\nRuntimeCmd: RuntimeCmd: \n", false},
		{"RuntimeCmd: Error: Invalid egress port\n", true},
		{"RuntimeCmd: Invalid table operation (INVALID_HANDLE)\n", true},
		{"Traceback (most recent call last):\n  File x\n", true},
		{"RuntimeCmd: *** Unknown syntax: set_queue_rat 1 2\n", true},
	} {
		if err := cliOutputError([]byte(tc.out)); (err != nil) != tc.bad {
			t.Errorf("%q: %v", tc.out, err)
		}
	}
}

func TestParseProcStat(t *testing.T) {
	line := "4242 (simple switch) (x)) S 1 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1000 200 18446744073709551615"
	st, start, err := parseProcStat([]byte(line))
	if err != nil || st != 'S' || start != 987654 {
		t.Errorf("got %c %d %v", st, start, err)
	}
	for _, bad := range []string{"", "1 (x S 1", "1 (x) S 1 2 3", "1 (x) S 1 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 notanumber"} {
		if _, _, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	st, start, err = procStat(os.Getpid())
	if err != nil || st == 'Z' || st == 'X' || start == 0 {
		t.Errorf("own stat: %c %d %v", st, start, err)
	}
}

// FuzzParseProcStat checks parseProcStat never panics and reads the start
// time it is given.
func FuzzParseProcStat(f *testing.F) {
	f.Add("(comm) S", uint64(987654))
	f.Add(") ) )", uint64(0))
	f.Fuzz(func(t *testing.T, comm string, start uint64) {
		line := fmt.Sprintf("7 (%s) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 %d 19 20", comm, start)
		st, got, err := parseProcStat([]byte(line))
		if err != nil || st != 'S' || got != start {
			t.Errorf("%q: %c %d %v", line, st, got, err)
		}
		parseProcStat([]byte(comm)) // arbitrary input: no panic
	})
}

func TestStopProcess(t *testing.T) {
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Skipf("needs sleep: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pid := cmd.Process.Pid
	t.Cleanup(func() { cmd.Process.Kill() })
	_, start, err := procStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	// a recorded start time that does not match: a recycled PID, left alone
	if err := stopProcess(context.Background(), pid, start+1, 0); err != nil {
		t.Fatal(err)
	}
	if !processAlive(pid, start) {
		t.Fatal("stopProcess signalled a process with another start time")
	}
	if err := stopProcess(context.Background(), pid, start, DefaultStopGrace); err != nil {
		t.Fatal(err)
	}
	<-done
	if processAlive(pid, start) {
		t.Error("process alive after stopProcess")
	}
	if err := stopProcess(context.Background(), pid, start, 0); err != nil {
		t.Errorf("stopping a gone process: %v", err)
	}
}
