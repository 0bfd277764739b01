package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"graphcc/control"
	"graphcc/hostgen"
	"graphcc/namespace"
	"graphcc/p4src"
)

// BMv2 process defaults.
const (
	// DefaultSwitchBinary is the BMv2 switch with a P4Runtime server,
	// looked up on PATH.
	DefaultSwitchBinary = "simple_switch_grpc"
	// DefaultCLIBinary is BMv2's Thrift runtime CLI, looked up on PATH.
	DefaultCLIBinary = "simple_switch_CLI"
	// DefaultStartTimeout bounds the wait for a switch's gRPC port.
	DefaultStartTimeout = 30 * time.Second
	// DefaultStopGrace is how long Down waits after SIGTERM before SIGKILL.
	DefaultStopGrace = 2 * time.Second
	// maxStopGrace bounds the grace a state file may ask for.
	maxStopGrace = time.Minute
)

// FrameBytes is the size on the wire of a full data frame, the unit of
// BMv2's queue rates and depths: 1000 bytes of payload and 48 of headers,
// as in the simulator (docs/simulator.md).
const FrameBytes = 1048

// QueueRatePPS returns the BMv2 egress queue rate of a port of rate bps in
// a testbed scaled down by scale: rate/scale in FrameBytes packets per
// second, rounded, at least 1.
func QueueRatePPS(rate, scale int64) int64 {
	pps := math.Round(float64(rate) / float64(scale) / (8 * FrameBytes))
	return max(int64(pps), 1)
}

// ControlRatePPS returns the BMv2 rate of a port's control queue (ACKs,
// NACKs, CNPs) for a port of rate bps in a testbed scaled down by scale:
// rate/scale in packets of hostgen.AckFrameLen bytes per second, the rate
// at which the real link serializes them, rounded, at least 1. BMv2 limits
// a queue in packets, so a control queue limited to the data rate in
// FrameBytes packets would serialize a 60-byte ACK as slowly as a full data
// frame: when a host sends at line rate, its ACKs alone would fill it and
// queue up.
func ControlRatePPS(rate, scale int64) int64 {
	pps := math.Round(float64(rate) / float64(scale) / (8 * hostgen.AckFrameLen))
	return max(int64(pps), 1)
}

// QueueDepth returns the BMv2 egress queue depth, in packets, of a port of
// rate bps on which the policies set kmax at most maxKMax bytes: twice the
// larger of maxKMax and the static Alibaba kmax of such a port, in
// FrameBytes packets, and at least BMv2's default of 64. BMv2 drops packets
// beyond the depth, so a queue shallower than kmax would never reach the
// always-mark region; the factor 2 leaves room above it (BMv2 has no PFC).
func QueueDepth(rate, maxKMax int64) int64 {
	kmax := max(control.Alibaba(rate).KMax, maxKMax)
	return max(2*((kmax+FrameBytes-1)/FrameBytes), 64)
}

// PriorityQueues is the number of egress queues per port the switches are
// started with (simple_switch's --priority-queues): graphcc.p4 puts
// ECN-capable packets in queue 0 and every other packet (ACKs, NACKs, CNPs)
// in queue 1, served first. Each gets the port's rate in its own packets
// (QueueRatePPS, ControlRatePPS): BMv2 counts a queue's rate in packets, so
// ACKs sharing the data queue would cost a full data packet each.
const PriorityQueues = 2

// targetArgs returns simple_switch_grpc's target options (after "--"): its
// gRPC address, the queues per port graphcc.p4 needs, and its CPU port
// (p4src.CPUPort), where P4Runtime PacketOuts enter the pipeline and
// frames sent to it leave as PacketIns: the in-band channel's.
func targetArgs(grpcAddr string) []string {
	return []string{"--", "--grpc-server-addr", grpcAddr, "--priority-queues", strconv.Itoa(PriorityQueues),
		"--cpu-port", strconv.Itoa(p4src.CPUPort)}
}

// switchArgs returns the command line of sw's simple_switch_grpc: its
// ports, Thrift port, no P4 program (P4Runtime pushes it later), its gRPC
// address and PriorityQueues; BMv2's own logging goes to the console (the
// log file) at logLevel, or is off if logLevel is empty.
func switchArgs(sw *SwitchState, logLevel string) []string {
	args := []string{"--device-id", strconv.FormatUint(sw.DeviceID, 10)}
	for _, p := range sw.Ports {
		args = append(args, "-i", fmt.Sprintf("%d@%s", p.Num, p.Iface))
	}
	args = append(args, "--thrift-port", strconv.Itoa(sw.ThriftPort), "--no-p4")
	if logLevel != "" {
		args = append(args, "--log-console", "--log-level", logLevel)
	}
	return append(args, targetArgs(sw.GRPCAddr)...)
}

// child is a process this process started: a goroutine waits for it, so
// it never lingers as a zombie, and closes done when it exits. The Lab
// that holds the child joins that goroutine in Down (waitChildren).
type child struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error // the exit status, valid after done is closed
}

// waitChildren waits, until ctx ends, for the goroutines that wait for the
// switch processes l started (after Down has stopped the processes).
func (l *Lab) waitChildren(ctx context.Context) error {
	l.mu.Lock()
	children := maps.Clone(l.children)
	l.mu.Unlock()
	for i, c := range children {
		select {
		case <-c.done:
		case <-ctx.Done():
			return fmt.Errorf("lab %s: wait for switch process %d: %w", l.state.Lab, c.cmd.Process.Pid, ctx.Err())
		}
		l.mu.Lock()
		delete(l.children, i)
		l.mu.Unlock()
	}
	return nil
}

// startInNetns starts bin with args inside namespace ns (forked from a
// thread that has entered ns), with stdout and stderr appended to logPath
// and its own process group, so a terminal's Ctrl-C reaches the controller
// (which tears the lab down in order) and not the switches directly. The
// process outlives this one if it is not stopped.
func startInNetns(ns netns.NsHandle, bin string, args []string, logPath string) (*child, error) {
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child has its own copy
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := namespace.Do(ns, cmd.Start); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// parseProcStat returns the state (field 3) and start time (field 22, in
// clock ticks since boot) of a /proc/<pid>/stat line. The command name in
// field 2 may hold spaces and parentheses; it ends at the last ')'.
func parseProcStat(b []byte) (state byte, start uint64, err error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, errors.New("proc stat: no command name")
	}
	f := strings.Fields(string(b[i+1:])) // fields 3, 4, …
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, errors.New("proc stat: too few fields")
	}
	start, err = strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("proc stat: start time: %w", err)
	}
	return f[0][0], start, nil
}

// procStat reads the state and start time of process pid.
func procStat(pid int) (state byte, start uint64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	return parseProcStat(b)
}

// processAlive reports whether process pid exists, is not a zombie, and
// started at start (so it is not a later process reusing the PID).
func processAlive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	st, s, err := procStat(pid)
	return err == nil && s == start && st != 'Z' && st != 'X'
}

// stopProcess ends process pid if it is still the one that started at
// start: SIGTERM, then SIGKILL if it has not exited after grace. A process
// that is gone, or whose PID now belongs to another process, counts as
// stopped. It works through a pidfd, so the signals cannot reach a process
// that reuses the PID after the check.
func stopProcess(ctx context.Context, pid int, start uint64, grace time.Duration) error {
	if pid <= 0 {
		return nil
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pidfd of %d: %w", pid, err)
	}
	defer unix.Close(fd)
	// the pidfd pins the process: check it is the recorded one
	if st, s, err := procStat(pid); err != nil || s != start || st == 'Z' || st == 'X' {
		return nil
	}
	for _, sig := range []unix.Signal{unix.SIGTERM, unix.SIGKILL} {
		err := unix.PidfdSendSignal(fd, sig, nil, 0)
		if errors.Is(err, unix.ESRCH) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("signal %d: %w", pid, err)
		}
		wait := grace
		if sig == unix.SIGKILL {
			wait = 10 * time.Second // the kernel's part; ctx may end it sooner
		}
		exited, err := waitPidfd(ctx, fd, wait)
		if exited || err != nil {
			return err
		}
	}
	return fmt.Errorf("process %d survived SIGKILL", pid)
}

// waitPidfd waits up to d for the process behind pidfd fd to exit
// (become a zombie or disappear), or for ctx to end.
func waitPidfd(ctx context.Context, fd int, d time.Duration) (bool, error) {
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left < 0 {
			left = 0
		}
		ms := int(min(left, 50*time.Millisecond) / time.Millisecond)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, ms)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return false, fmt.Errorf("poll pidfd: %w", err)
		}
		if n > 0 {
			return true, nil
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if left == 0 {
			return false, nil
		}
	}
}

// waitListening dials addr inside namespace ns until a connection is
// accepted, ctx ends, or the process c (if not nil) exits.
func waitListening(ctx context.Context, ns netns.NsHandle, addr string, c *child) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		var conn net.Conn
		last = namespace.Do(ns, func() error {
			dctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			var d net.Dialer
			var err error
			conn, err = d.DialContext(dctx, "tcp", addr)
			return err
		})
		if last == nil {
			conn.Close()
			return nil
		}
		var done <-chan struct{}
		if c != nil {
			done = c.done
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w (last dial: %v)", addr, ctx.Err(), last)
		case <-done:
			return fmt.Errorf("exited before listening on %s: %v", addr, c.err)
		case <-tick.C:
		}
	}
}

// queueCommands returns the Thrift CLI commands that set the egress queue
// rate and depth of every port (of all its priority queues), then the rate
// of its control queue (priority 1) where the state names one.
func queueCommands(ports []PortState) string {
	var b strings.Builder
	for _, p := range ports {
		fmt.Fprintf(&b, "set_queue_rate %d %d\n", p.QueueRatePPS, p.Num)
		fmt.Fprintf(&b, "set_queue_depth %d %d\n", p.QueueDepth, p.Num)
		if p.ControlRatePPS > 0 {
			fmt.Fprintf(&b, "set_queue_rate %d %d %d\n", p.ControlRatePPS, p.Num, PriorityQueues-1)
		}
	}
	return b.String()
}

// runCLI runs BMv2's Thrift CLI inside namespace ns against thriftPort
// with the commands on stdin, and fails if it exits non-zero or reports an
// error on any command (the CLI prints errors and carries on, exiting 0).
func runCLI(ctx context.Context, ns netns.NsHandle, bin string, thriftPort int, jsonPath, commands string) error {
	args := []string{"--thrift-port", strconv.Itoa(thriftPort)}
	if jsonPath != "" {
		args = append(args, "--json", jsonPath)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = strings.NewReader(commands)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	if err := namespace.Do(ns, cmd.Start); err != nil {
		return err
	}
	if err := cmd.Wait(); err != nil {
		hint := ""
		if bytes.Contains(out.Bytes(), []byte("ModuleNotFoundError")) {
			hint = " (the python3 first on PATH, which runs the CLI, lacks a module BMv2's CLI imports: install it for that python, or put the python that has it first on PATH)"
		}
		return fmt.Errorf("%s: %w: %s%s", bin, err, tail(out.Bytes(), 5), hint)
	}
	return cliOutputError(out.Bytes())
}

// cliOutputError returns an error for the first line of the CLI's output
// that reports a failed command: "Error: …" for bad input, "Invalid …" for
// an operation the switch refused, or a Python traceback.
func cliOutputError(out []byte) error {
	for line := range strings.Lines(string(out)) {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "RuntimeCmd:"))
		if strings.HasPrefix(line, "Error") || strings.HasPrefix(line, "Invalid") ||
			strings.HasPrefix(line, "Traceback") || strings.HasPrefix(line, "*** Unknown syntax") {
			return fmt.Errorf("thrift CLI: %s", line)
		}
	}
	return nil
}

// tail returns the last n lines of b, for error messages.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// fileTail returns the last n lines of the file at path, or "" if it
// cannot be read.
func fileTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return ""
	}
	if len(b) > 8192 {
		b = b[len(b)-8192:]
	}
	return tail(b, n)
}

// cliStubJSON is a BMv2 JSON program with no objects. The Thrift CLI loads
// a program before it reads commands, from the switch unless --json names
// a file, and a switch started with --no-p4 has none to give; the queue
// commands need no program, so this stub stands in until the real one
// (Config.PipelineJSON) exists. Every top-level list the CLI iterates
// is present and empty.
const cliStubJSON = `{
  "header_types": [], "headers": [], "header_stacks": [], "header_union_types": [],
  "header_unions": [], "header_union_stacks": [], "field_lists": [], "errors": [],
  "enums": [], "parsers": [], "parse_vsets": [], "deparsers": [], "meter_arrays": [],
  "counter_arrays": [], "register_arrays": [], "calculations": [], "learn_lists": [],
  "actions": [], "pipelines": [], "checksums": [], "force_arith": [],
  "extern_instances": [], "field_aliases": []
}
`
