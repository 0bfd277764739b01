package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// built is the graphcc command TestMain built for these tests, or why it
// could not.
var built struct {
	path string
	err  error
}

// TestMain builds cmd/graphcc once, for the tests that run it as a user
// does, in processes of its own.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "graphcc-tests")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	built.path, built.err = buildGraphcc(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildGraphcc builds cmd/graphcc into dir with the go command.
func buildGraphcc(dir string) (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", errNoGo
	}
	bin := filepath.Join(dir, "graphcc")
	cmd := exec.Command(goTool, "build", "-o", bin, "./cmd/graphcc")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

var errNoGo = errors.New("the go command is not on PATH")

// graphccBinary returns the graphcc command TestMain built; it skips t if
// there was no go command to build it with, and fails t if the build
// failed.
func graphccBinary(t *testing.T) string {
	t.Helper()
	if errors.Is(built.err, errNoGo) {
		t.Skip("needs the go command on PATH to build graphcc")
	}
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// graphcc runs bin with args in dir and returns its stdout, stderr and
// exit code.
func graphcc(t *testing.T, bin, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &exit):
		return stdout.String(), stderr.String(), exit.ExitCode()
	}
	t.Fatalf("graphcc %s: %v", strings.Join(args, " "), err)
	return "", "", 0
}

// mustRun runs graphcc and fails t unless it exits 0.
func mustRun(t *testing.T, bin, dir string, args ...string) string {
	t.Helper()
	out, errOut, code := graphcc(t, bin, dir, args...)
	if code != 0 {
		t.Fatalf("graphcc %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// summaryOf reads a summary JSON without the keys that measure the
// machine rather than the simulation.
func summaryOf(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	delete(m, "wall_seconds")
	delete(m, "peak_rss_bytes")
	return m
}

// TestCLIGenSimCompare is the simulator's round trip through files, in
// separate processes: gen writes a trace and its topology, sim replays them
// under the embedded GraphCC model twice with the same seed and writes the
// very same FCT records and summary, and compare finds no difference.
func TestCLIGenSimCompare(t *testing.T) {
	bin := graphccBinary(t)
	dir := t.TempDir()
	mustRun(t, bin, dir, "gen", "--leaves", "2", "--spines", "1", "--hosts-per-leaf", "2", "--incast-fanin", "3",
		"--duration", "2ms", "--seed", "7", "--flows-out", "flows.txt", "--topo-out", "topo.txt")
	for _, name := range []string{"a", "b"} {
		out := mustRun(t, bin, dir, "sim", "--flows", "flows.txt", "--topo", "topo.txt", "--policy", "graphcc",
			"--fct-out", name+".fct", "--summary-out", name+".json")
		if !strings.Contains(out, "slowdown") {
			t.Errorf("sim printed no summary table:\n%s", out)
		}
	}
	a, err := os.ReadFile(filepath.Join(dir, "a.fct"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "b.fct"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("two runs of the same trace and seed wrote different FCT records (%d and %d bytes)", len(a), len(b))
	}
	sa, sb := summaryOf(t, filepath.Join(dir, "a.json")), summaryOf(t, filepath.Join(dir, "b.json"))
	if !reflect.DeepEqual(sa, sb) {
		t.Errorf("two runs wrote different summaries:\n%v\n%v", sa, sb)
	}
	if sa["flows"] != sa["completed"] || sa["flows"] == 0.0 {
		t.Errorf("%v of %v flows completed", sa["completed"], sa["flows"])
	}
	out := mustRun(t, bin, dir, "compare", "a.fct", "b.fct")
	if !strings.Contains(out, "0 of ") || !strings.Contains(out, "differ by more than") {
		t.Errorf("compare of identical records:\n%s", out)
	}
}

// TestCLIBadInput: bad input makes graphcc exit non-zero with an error
// that names the file and line or the flag, and leaves no output file.
func TestCLIBadInput(t *testing.T) {
	bin := graphccBinary(t)
	dir := t.TempDir()
	mustRun(t, bin, dir, "gen", "--leaves", "2", "--spines", "1", "--hosts-per-leaf", "2", "--no-incast",
		"--duration", "1ms", "--flows-out", "flows.txt", "--topo-out", "topo.txt")
	flows, err := os.ReadFile(filepath.Join(dir, "flows.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(flows), "\n")
	if len(lines) < 4 {
		t.Fatalf("flows.txt has %d lines", len(lines))
	}
	lines[2] = "0 1 3 100 abc 2.0\n"
	if err := os.WriteFile(filepath.Join(dir, "bad.txt"), []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	topo, err := os.ReadFile(filepath.Join(dir, "topo.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tl := strings.SplitAfter(string(topo), "\n")
	last := len(tl) - 2 // the last link's line (the file ends in a newline)
	tl[last] = strings.Replace(tl[last], "100Gbps", "fast", 1)
	if err := os.WriteFile(filepath.Join(dir, "badtopo.txt"), []byte(strings.Join(tl, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"malformed flow file", []string{"sim", "--flows", "bad.txt", "--topo", "topo.txt", "--fct-out", "out.fct"}, "bad.txt:3:"},
		{"malformed topology", []string{"sim", "--flows", "flows.txt", "--topo", "badtopo.txt", "--fct-out", "out.fct"}, `badtopo.txt:8: bad rate "fast"`},
		{"ECN setting out of range", []string{"sim", "--kmin-kb", "-5", "--duration", "1ms", "--fct-out", "out.fct"}, "--kmin-kb -5"},
		{"pmax out of range", []string{"sim", "--policy", "static:10,40,1.5", "--duration", "1ms", "--fct-out", "out.fct"}, "ecn: pmax 1.5 is outside [0, 1]"},
		{"missing flow file", []string{"sim", "--flows", "none.txt", "--fct-out", "out.fct"}, "--flows: open none.txt"},
		{"unknown scenario", []string{"eval", "--scenarios", "nosuch", "--out", "ev"}, `unknown scenario "nosuch"`},
		{"float flag with a typo", []string{"sim", "--load", "0.6x", "--fct-out", "out.fct"}, "graphcc: --load: \"0.6x\" is not a number\n"},
		{"status of no lab", []string{"testbed", "status", "--lab", "nolab", "--dir", "lab"},
			"graphcc: no lab \"nolab\" is up in lab (graphcc testbed up --lab nolab --dir lab starts one)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := graphcc(t, bin, dir, tc.args...)
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q: want a failure naming %q", code, errOut, tc.want)
			}
			for _, out := range []string{"out.fct", "ev"} {
				if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
					t.Errorf("a failed run left %s", out)
				}
			}
		})
	}
}

// TestCLIInterrupt: SIGINT stops a long run, which exits 130 after its
// cleanup with one line saying so, and leaves no output, whole or partial
// (the telemetry trace streams into a temporary file during the run).
func TestCLIInterrupt(t *testing.T) {
	bin := graphccBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "sim", "--duration", "2s", "--fct-out", "out.fct", "--summary-out", "summary.json", "--trace-out", "trace.csv")
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForTrace(t, cmd, dir) // into the simulation, which takes about a minute
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("graphcc sim still running 30 s after SIGINT")
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("graphcc sim after SIGINT: %v, want exit status 130", err)
	}
	if got := stderr.String(); got != "graphcc: interrupted\n" {
		t.Errorf("stderr %q, want one line: graphcc: interrupted", got)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("an interrupted run left %s", e.Name())
	}
}

// waitForTrace waits until the run of cmd in dir has written telemetry
// into its trace's temporary file, the sign that it is simulating, and
// fails (killing it) if that takes a minute.
func waitForTrace(t *testing.T, cmd *exec.Cmd, dir string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if info, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), ".trace.csv.tmp") && info.Size() > 0 {
				return
			}
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Fatal("graphcc sim wrote no telemetry in a minute")
}
