package slurmtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Proc is a running process: its ID and command line.
type Proc struct {
	PID     int
	Cmdline string
}

// Leftovers returns the running processes whose environment has MarkerEnv
// set to dir: the daemons of the cluster in dir and everything they
// started, jobs included (a job inherits the environment it was submitted
// with, and the cluster's commands carry the marker). Processes whose
// environment cannot be read (another user's, or gone meanwhile) are not
// the cluster's: it runs as root.
func Leftovers(dir string) ([]Proc, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	marker := []byte(MarkerEnv + "=" + dir)
	var procs []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !hasVar(env, marker) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		procs = append(procs, Proc{PID: pid, Cmdline: strings.TrimSpace(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))})
	}
	return procs, nil
}

// hasVar reports whether environ (NUL-separated NAME=value entries, as in
// /proc/PID/environ) has the entry kv exactly.
func hasVar(environ, kv []byte) bool {
	for _, e := range bytes.Split(environ, []byte{0}) {
		if bytes.Equal(e, kv) {
			return true
		}
	}
	return false
}
