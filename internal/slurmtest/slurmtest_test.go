package slurmtest

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSlurmConf(t *testing.T) {
	c := Config{Dir: "/tmp/slurmtest123", CtldPort: 40001, SlurmdPort: 40002, CPUs: 3, User: "root"}
	conf := c.SlurmConf()
	for _, want := range []string{
		"SlurmctldHost=localhost(127.0.0.1)\n",
		"SlurmctldPort=40001\n",
		"SlurmdPort=40002\n",
		"AuthInfo=socket=/tmp/slurmtest123/munge/munge.socket\n",
		"ProctrackType=proctrack/linuxproc\n",
		"TaskPlugin=task/none\n",
		"SelectType=select/cons_tres\n",
		"NodeName=localhost NodeAddr=127.0.0.1 CPUs=3 ",
		"PartitionName=test Nodes=localhost Default=YES",
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("slurm.conf lacks %q:\n%s", want, conf)
		}
	}
	// Every file a daemon writes is under Dir: no key naming a path may
	// point elsewhere, or two clusters (or a system Slurm) would share it.
	for _, line := range strings.Split(conf, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok || !strings.HasSuffix(k, "File") && !strings.HasSuffix(k, "Dir") && !strings.HasSuffix(k, "Location") {
			continue
		}
		if !strings.HasPrefix(v, c.Dir+"/") {
			t.Errorf("%s=%s is outside the cluster's directory %s", k, v, c.Dir)
		}
	}
	if strings.Contains(conf, "cgroup") {
		t.Errorf("slurm.conf uses cgroups, which containers here may not delegate:\n%s", conf)
	}
}

func TestFreePorts(t *testing.T) {
	ports, err := freePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p <= 0 || p > 65535 || seen[p] {
			t.Errorf("freePorts(3) = %v: not three distinct ports", ports)
		}
		seen[p] = true
	}
}

func TestParseJobs(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    []Job
		wantErr string
	}{{
		name: "a job whose command has arguments",
		out: "JobId=7 JobName=merge UserId=root(0) JobState=COMPLETED Reason=None Dependency=(null) ExitCode=0:0 " +
			"Command=/spool/merge.sbatch a b WorkDir=/tmp StdOut=/out/merge-7.out Power=\n",
		want: []Job{{ID: "7", State: "COMPLETED", Reason: "None", ExitCode: "0:0", StdOut: "/out/merge-7.out"}},
	}, {
		name: "an array's tasks, two ended and two pending",
		out: "JobId=5 ArrayJobId=3 ArrayTaskId=1 JobState=FAILED Reason=NonZeroExitCode ExitCode=1:0\n" +
			"JobId=3 ArrayJobId=3 ArrayTaskId=0 JobState=COMPLETED Reason=None ExitCode=0:0\n" +
			"JobId=4 ArrayJobId=3 ArrayTaskId=2-3 JobState=PENDING Reason=Resources ExitCode=0:0\n\n",
		want: []Job{
			{ID: "5", ArrayJobID: "3", ArrayTaskID: "1", State: "FAILED", Reason: "NonZeroExitCode", ExitCode: "1:0"},
			{ID: "3", ArrayJobID: "3", ArrayTaskID: "0", State: "COMPLETED", Reason: "None", ExitCode: "0:0"},
			{ID: "4", ArrayJobID: "3", ArrayTaskID: "2-3", State: "PENDING", Reason: "Resources", ExitCode: "0:0"},
		},
	}, {
		name:    "an error message, not a job",
		out:     "slurm_load_jobs error: Invalid job id specified\n",
		wantErr: "line 1: no JobId or JobState",
	}, {
		name: "nothing",
		out:  "",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJobs(tt.out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseJobs error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseJobs =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestJobDoneAndName(t *testing.T) {
	tests := []struct {
		job  Job
		done bool
		name string
	}{
		{Job{ID: "3", State: "PENDING"}, false, "3"},
		{Job{ID: "3", State: "RUNNING"}, false, "3"},
		{Job{ID: "3", State: "COMPLETING"}, false, "3"},
		{Job{ID: "4", ArrayJobID: "3", ArrayTaskID: "1", State: "COMPLETED"}, true, "3_1"},
		{Job{ID: "3", State: "FAILED"}, true, "3"},
		{Job{ID: "3", State: "CANCELLED"}, true, "3"},
		{Job{ID: "3", State: "TIMEOUT"}, true, "3"},
	}
	for _, tt := range tests {
		if got := tt.job.Done(); got != tt.done {
			t.Errorf("%v Done() = %v, want %v", tt.job, got, tt.done)
		}
		if got := tt.job.Name(); got != tt.name {
			t.Errorf("%v Name() = %q, want %q", tt.job, got, tt.name)
		}
	}
}

func FuzzParseJobs(f *testing.F) {
	f.Add("JobId=7 JobState=COMPLETED Command=/a b c StdOut=/o\n")
	f.Add("JobId=5 ArrayJobId=3 ArrayTaskId=1 JobState=FAILED Reason=NonZeroExitCode ExitCode=1:0\n")
	f.Add("x=y =z JobId= JobState==\n\n")
	f.Fuzz(func(t *testing.T, out string) {
		jobs, err := ParseJobs(out)
		if err != nil {
			return
		}
		for _, j := range jobs {
			if j.ID == "" || j.State == "" {
				t.Fatalf("ParseJobs(%q) returned %+v without an error", out, j)
			}
		}
	})
}

func TestHasVar(t *testing.T) {
	env := []byte("A=1\x00GRAPHCC_SLURMTEST=/tmp/s1\x00B=2")
	tests := []struct {
		kv   string
		want bool
	}{
		{"GRAPHCC_SLURMTEST=/tmp/s1", true},
		{"GRAPHCC_SLURMTEST=/tmp/s", false},
		{"GRAPHCC_SLURMTEST=/tmp/s12", false},
		{"B=2", true},
	}
	for _, tt := range tests {
		if got := hasVar(env, []byte(tt.kv)); got != tt.want {
			t.Errorf("hasVar(%q) = %v, want %v", tt.kv, got, tt.want)
		}
	}
}

// TestCluster starts a cluster, runs a job array and a job that depends on
// it (afterok), then an array with a failing task, whose dependent job
// Slurm cancels, and stops the cluster, which must leave no process of its
// own behind.
func TestCluster(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := Start(ctx, t)
	out := t.TempDir()

	array, err := c.Submit(ctx, "--array=0-2", "--output="+filepath.Join(out, "task-%a.out"),
		"--wrap", "echo $SLURM_ARRAY_TASK_ID > "+out+"/part-$SLURM_ARRAY_TASK_ID")
	if err != nil {
		t.Fatal(err)
	}
	merge, err := c.Submit(ctx, "--dependency=afterok:"+array, "--kill-on-invalid-dep=yes",
		"--output="+filepath.Join(out, "merge.out"), "--wrap", "cat "+out+"/part-0 "+out+"/part-1 "+out+"/part-2 > "+out+"/all")
	if err != nil {
		t.Fatal(err)
	}
	wantStates(ctx, t, c, array, "COMPLETED", "COMPLETED", "COMPLETED")
	wantStates(ctx, t, c, merge, "COMPLETED")
	if got, err := os.ReadFile(filepath.Join(out, "all")); err != nil || string(got) != "0\n1\n2\n" {
		t.Errorf("the merge job wrote %q (%v), want the three tasks' indexes", got, err)
	}

	failing, err := c.Submit(ctx, "--array=0-1", "--output=/dev/null", "--wrap", "exit $SLURM_ARRAY_TASK_ID")
	if err != nil {
		t.Fatal(err)
	}
	after, err := c.Submit(ctx, "--dependency=afterok:"+failing, "--kill-on-invalid-dep=yes", "--output=/dev/null", "--wrap", "true")
	if err != nil {
		t.Fatal(err)
	}
	wantStates(ctx, t, c, failing, "COMPLETED", "FAILED")
	wantStates(ctx, t, c, after, "CANCELLED")

	// A job still running when the cluster stops is cancelled with it.
	if _, err := c.Submit(ctx, "--output=/dev/null", "--wrap", "sleep 600"); err != nil {
		t.Fatal(err)
	}
	pids := c.PIDs()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("daemon %d still running after Stop", pid)
		}
	}
	if left, err := Leftovers(c.Dir); err != nil || len(left) > 0 {
		t.Errorf("after Stop, processes of the cluster: %v (%v)", left, err)
	}
}

// wantStates waits for job id and checks its tasks' states, in the order
// of their task index (one state for a job outside an array).
func wantStates(ctx context.Context, t *testing.T, c *Cluster, id string, want ...string) {
	t.Helper()
	jobs, err := c.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(want))
	for _, j := range jobs {
		i := 0
		if j.ArrayJobID != "" {
			var err error
			if i, err = strconv.Atoi(j.ArrayTaskID); err != nil || i < 0 || i >= len(want) {
				t.Errorf("job %s: unexpected task %s", id, j.Name())
				continue
			}
		}
		got[i] = j.State
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("job %s: states %v, want %v (%v)", id, got, want, jobs)
	}
}
