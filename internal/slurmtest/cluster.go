package slurmtest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"graphcc/internal/privtest"
)

// Programs are the programs a cluster needs on PATH: MUNGE's daemon, the
// Slurm daemons (Debian's munge, slurmctld and slurmd, which slurm-wlm
// pulls in) and the commands a test uses (slurm-client).
var Programs = []string{"munged", "slurmctld", "slurmd", "sbatch", "sinfo", "squeue", "scontrol", "scancel"}

// MarkerEnv is set, to the cluster's directory, in the environment of
// every daemon the cluster starts and of the commands it runs, so of every
// job too: the processes whose environment carries it are the cluster's.
const MarkerEnv = "GRAPHCC_SLURMTEST"

// poll is how often the cluster asks Slurm whether something it waits for
// has happened.
const poll = 250 * time.Millisecond

// Cluster is a running one-node Slurm cluster that Start made.
type Cluster struct {
	// Dir holds the cluster's files: slurm.conf, the MUNGE key and socket,
	// state, spool, logs (Dir/log).
	Dir string
	// Conf is the path of its slurm.conf, SLURM_CONF in Env.
	Conf string
	// CPUs is its node's CPU count.
	CPUs int

	env     []string
	daemons []*daemon
	stopped bool
	stopErr error
}

// daemon is a process the cluster started and owns.
type daemon struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd.Wait returns
}

// Start starts a one-node cluster for tb: munged, slurmctld and slurmd
// (see Config.SlurmConf), and waits, within ctx, until the node is idle.
// It skips tb unless it runs as root with Programs on PATH (package
// privtest). It registers the cleanup first: stop (Stop) and remove the
// directory; a failed test also gets the tail of every daemon's log.
func Start(ctx context.Context, tb testing.TB) *Cluster {
	tb.Helper()
	privtest.All(tb, true, Programs...)
	c, err := newCluster()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := c.Stop(); err != nil {
			tb.Error(err)
		}
		if tb.Failed() {
			tb.Log(c.logTails())
		}
		os.RemoveAll(c.Dir)
	})
	begin := time.Now()
	if err := c.start(ctx); err != nil {
		tb.Fatalf("start the test Slurm cluster in %s: %v", c.Dir, err)
	}
	tb.Logf("slurmtest: a one-node Slurm cluster of %d CPUs in %s, its node idle %v after the start", c.CPUs, c.Dir, time.Since(begin).Round(time.Millisecond))
	return c
}

// newCluster makes the cluster's directory and writes its configuration
// and MUNGE key.
func newCluster() (c *Cluster, err error) {
	// Not tb.TempDir: a Unix socket's path has at most 107 bytes, and a
	// test's name is in the path of its TempDir.
	dir, err := os.MkdirTemp("", "slurmtest")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	u, err := user.Current()
	if err != nil {
		return nil, fmt.Errorf("the current user: %w", err)
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	cfg := Config{Dir: dir, CtldPort: ports[0], SlurmdPort: ports[1], CPUs: runtime.NumCPU(), User: u.Username}
	c = &Cluster{Dir: dir, Conf: cfg.confPath(), CPUs: cfg.CPUs}
	c.env = append(cleanEnv(os.Environ()), "SLURM_CONF="+c.Conf, MarkerEnv+"="+dir)
	// The MUNGE socket's directory must be searchable by everyone; Slurm's
	// spool, state and log directories are made by their daemons.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	for _, d := range []string{cfg.mungeDir(), cfg.logDir()} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
	}
	key := make([]byte, 128)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("MUNGE key: %w", err)
	}
	if err := os.WriteFile(filepath.Join(cfg.mungeDir(), "munge.key"), key, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(c.Conf, []byte(cfg.SlurmConf()), 0o644); err != nil {
		return nil, err
	}
	return c, nil
}

// cleanEnv drops from env the variables that would point Slurm's commands
// elsewhere: SLURM_* and SBATCH_* (a test run inside a Slurm job has them)
// and an earlier cluster's marker.
func cleanEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "SLURM_") || strings.HasPrefix(kv, "SBATCH_") ||
			strings.HasPrefix(kv, "SALLOC_") || strings.HasPrefix(kv, MarkerEnv+"=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// start starts the daemons in order and waits for the node to be idle.
func (c *Cluster) start(ctx context.Context) error {
	munge := filepath.Join(c.Dir, "munge")
	if err := c.startDaemon("munged", "--foreground", "--force",
		"--key-file="+filepath.Join(munge, "munge.key"),
		"--socket="+filepath.Join(munge, "munge.socket"),
		"--pid-file="+filepath.Join(munge, "munged.pid"),
		"--log-file="+filepath.Join(c.Dir, "log", "munged.log"),
		"--seed-file="+filepath.Join(munge, "munged.seed")); err != nil {
		return err
	}
	if err := c.waitFor(ctx, "munged's socket", func() (bool, error) {
		_, err := os.Stat(filepath.Join(munge, "munge.socket"))
		return err == nil, nil
	}); err != nil {
		return err
	}
	if err := c.startDaemon("slurmctld", "-D", "-f", c.Conf); err != nil {
		return err
	}
	if err := c.startDaemon("slurmd", "-D", "-N", NodeName, "-f", c.Conf); err != nil {
		return err
	}
	return c.waitFor(ctx, "node "+NodeName+" idle", func() (bool, error) {
		out, err := c.Command(ctx, "sinfo", "--noheader", "--Node", "--nodes", NodeName, "--format", "%T").Output()
		// Until slurmctld listens, sinfo fails: keep asking.
		return err == nil && strings.TrimSpace(string(out)) == "idle", nil
	})
}

// startDaemon starts the program name with args in the foreground as a
// process of the cluster's, its output in Dir/log/name.out.
func (c *Cluster) startDaemon(name string, args ...string) error {
	out, err := os.Create(filepath.Join(c.Dir, "log", name+".out"))
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.Command(name, args...)
	cmd.Env = c.env
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group: a ^C to the test is the test's to handle. If
	// the test process dies without stopping the cluster (a test binary's
	// timeout), the daemons are told to end too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	d := &daemon{name: name, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(d.done) }()
	c.daemons = append(c.daemons, d)
	return nil
}

// waitFor calls ready every poll until it returns true, an error, a daemon
// exits, or ctx ends.
func (c *Cluster) waitFor(ctx context.Context, what string, ready func() (bool, error)) error {
	for {
		ok, err := ready()
		if err != nil || ok {
			return err
		}
		for _, d := range c.daemons {
			select {
			case <-d.done:
				return fmt.Errorf("wait for %s: %s exited (%v); see %s", what, d.name, d.cmd.ProcessState, filepath.Join(c.Dir, "log"))
			default:
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w", what, ctx.Err())
		case <-time.After(poll):
		}
	}
}

// Env is the environment of the cluster's commands: the test's, without
// Slurm's variables, with SLURM_CONF set to the cluster's slurm.conf and
// MarkerEnv to its directory. Jobs submitted with it inherit it.
func (c *Cluster) Env() []string { return append([]string(nil), c.env...) }

// Command returns a command of name (a Slurm command, or a script that
// runs them) with args, in the cluster's environment.
func (c *Cluster) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = c.Env()
	return cmd
}

// Submit submits a batch job with sbatch and args and returns its job ID.
func (c *Cluster) Submit(ctx context.Context, args ...string) (string, error) {
	out, err := c.Command(ctx, "sbatch", append([]string{"--parsable"}, args...)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("sbatch %s: %w: %s", strings.Join(args, " "), err, out)
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	return id, nil
}

// Jobs returns the records of job id (of every task, for an array job).
func (c *Cluster) Jobs(ctx context.Context, id string) ([]Job, error) {
	out, err := c.Command(ctx, "scontrol", "--oneliner", "show", "job", id).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("scontrol show job %s: %w: %s", id, err, out)
	}
	return ParseJobs(string(out))
}

// Wait waits, within ctx, until job id (every task of an array job) has
// ended, and returns its records. It returns an error only if Slurm cannot
// be asked or ctx ends; a job that failed is a record with its state.
func (c *Cluster) Wait(ctx context.Context, id string) ([]Job, error) {
	var jobs []Job
	err := c.waitFor(ctx, "job "+id, func() (bool, error) {
		var err error
		jobs, err = c.Jobs(ctx, id)
		if err != nil {
			return false, err
		}
		for _, j := range jobs {
			if !j.Done() {
				return false, nil
			}
		}
		return true, nil
	})
	return jobs, err
}

// Stop cancels every job, stops the daemons it started (SIGTERM, then
// SIGKILL after 10 s), and then kills any process still carrying the
// cluster's marker (a job step or a job's program that outlived them),
// returning an error naming each. A second Stop returns the first's
// result.
func (c *Cluster) Stop() error {
	if c.stopped {
		return c.stopErr
	}
	c.stopped = true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := []error{c.cancelJobs(ctx)}
	for i := len(c.daemons) - 1; i >= 0; i-- {
		errs = append(errs, c.daemons[i].stop())
	}
	left, err := Leftovers(c.Dir)
	errs = append(errs, err)
	for _, p := range left {
		syscall.Kill(p.PID, syscall.SIGKILL)
		errs = append(errs, fmt.Errorf("slurmtest: process %d (%s) of the cluster in %s was still running after its daemons stopped: killed", p.PID, p.Cmdline, c.Dir))
	}
	c.stopErr = errors.Join(errs...)
	return c.stopErr
}

// cancelJobs cancels the cluster's jobs and waits, within ctx, until none
// is left in the queue.
func (c *Cluster) cancelJobs(ctx context.Context) error {
	if d := c.daemon("slurmctld"); d == nil || d.exited() {
		return nil // no slurmctld to ask
	}
	list := func() ([]string, error) {
		out, err := c.Command(ctx, "squeue", "--noheader", "--format", "%A").Output()
		return strings.Fields(string(out)), err
	}
	ids, err := list()
	if err != nil || len(ids) == 0 {
		return err
	}
	if out, err := c.Command(ctx, "scancel", ids...).CombinedOutput(); err != nil {
		return fmt.Errorf("scancel %s: %w: %s", strings.Join(ids, " "), err, out)
	}
	return c.waitFor(ctx, "the cancelled jobs to leave the queue", func() (bool, error) {
		ids, err := list()
		return len(ids) == 0, err
	})
}

// daemon returns the cluster's daemon of that name, or nil.
func (c *Cluster) daemon(name string) *daemon {
	for _, d := range c.daemons {
		if d.name == name {
			return d
		}
	}
	return nil
}

// exited reports whether the daemon's process has ended.
func (d *daemon) exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// stop ends the daemon: SIGTERM, then SIGKILL if it is still running 10 s
// later, and waits for it.
func (d *daemon) stop() error {
	if d.exited() {
		return nil
	}
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
		return nil
	case <-time.After(10 * time.Second):
	}
	d.cmd.Process.Kill()
	<-d.done
	return fmt.Errorf("slurmtest: %s (pid %d) ignored SIGTERM for 10 s: killed", d.name, d.cmd.Process.Pid)
}

// PIDs returns the process IDs of the daemons the cluster started
// (munged, slurmctld, slurmd).
func (c *Cluster) PIDs() []int {
	var pids []int
	for _, d := range c.daemons {
		pids = append(pids, d.cmd.Process.Pid)
	}
	return pids
}

// logTails returns the last lines of every file in Dir/log.
func (c *Cluster) logTails() string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(c.Dir, "log", "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		lines = lines[max(0, len(lines)-15):]
		fmt.Fprintf(&b, "--- %s (last %d lines)\n%s\n", f, len(lines), strings.Join(lines, "\n"))
	}
	return b.String()
}
