package slurmtest

import (
	"fmt"
	"strings"
)

// Job is one record of `scontrol show job --oneliner`: a job, one task of
// a job array, or the array's tasks still pending together.
type Job struct {
	ID          string // JobId
	ArrayJobID  string // ArrayJobId, "" outside an array
	ArrayTaskID string // ArrayTaskId: a task's index, or the pending ones ("2-3")
	State       string // JobState: PENDING, RUNNING, COMPLETED, FAILED, …
	Reason      string // Reason: why it is pending or ended (None if none)
	ExitCode    string // ExitCode, "code:signal"
	StdOut      string // StdOut: the file of its standard output
}

// Name is how a job is named in messages: "12" or "12_3" for task 3 of
// array job 12.
func (j Job) Name() string {
	if j.ArrayJobID != "" {
		return j.ArrayJobID + "_" + j.ArrayTaskID
	}
	return j.ID
}

// Done reports whether the job has ended, successfully or not.
func (j Job) Done() bool {
	switch j.State {
	case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
		"PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY":
		return true
	}
	return false
}

// String is the job's name, state, reason and exit code.
func (j Job) String() string {
	return fmt.Sprintf("job %s %s (reason %s, exit code %s)", j.Name(), j.State, j.Reason, j.ExitCode)
}

// ParseJobs reads the output of `scontrol show job --oneliner`: one job a
// line, as Key=Value fields separated by spaces. A value may contain
// spaces (a command's arguments): a word that does not start with a key
// and "=" continues the value before it. Every line must have a JobId and
// a JobState.
func ParseJobs(out string) ([]Job, error) {
	var jobs []Job
	for n, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := fields(line)
		j := Job{
			ID:          f["JobId"],
			ArrayJobID:  f["ArrayJobId"],
			ArrayTaskID: f["ArrayTaskId"],
			State:       f["JobState"],
			Reason:      f["Reason"],
			ExitCode:    f["ExitCode"],
			StdOut:      f["StdOut"],
		}
		if j.ID == "" || j.State == "" {
			return nil, fmt.Errorf("scontrol show job, line %d: no JobId or JobState in %.80q", n+1, line)
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// fields splits one line of scontrol's one-line output into its keys and
// values.
func fields(line string) map[string]string {
	f := map[string]string{}
	key := ""
	for _, word := range strings.Fields(line) {
		k, v, ok := strings.Cut(word, "=")
		if ok && isKey(k) {
			key = k
			f[key] = v
			continue
		}
		if key != "" {
			f[key] += " " + word
		}
	}
	return f
}

// isKey reports whether s can be a field name of scontrol: a letter, then
// letters, digits and the ':' and '/' of names such as "Socks/Node".
func isKey(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && (c < '0' || c > '9') && c != ':' && c != '/' && c != '_' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
