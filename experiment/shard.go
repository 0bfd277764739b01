package experiment

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A Shard is one of Count parts of an evaluation's units, Index counted
// from 0, that an engine runs as one task (a Slurm array task, a
// Kubernetes Indexed Job's pod): EvaluatePart runs its units, Merge puts
// the parts of every shard back together into the report Evaluate
// writes. The zero Shard is the whole evaluation.
//
// A unit is one policy's run on one scenario at one seed. Units are in
// the canonical order of the results, scenario-major, then policy, then
// seed, and unit u belongs to shard u mod Count: the same flags give the
// same shards on any machine, shards differ by at most one unit, and
// consecutive seeds of one policy go to different shards, so every shard
// gets about as much of each policy and scenario (whose runs' costs
// differ) as the others.
type Shard struct {
	Index, Count int
}

// MaxShards bounds Shard.Count: more shards than Kubernetes allows an
// Indexed Job's completions, and than Slurm's largest array.
const MaxShards = 100_000

// ShardEnv are the environment variables ParseShard reads a shard's index
// from, in order: a Slurm array task's, a Kubernetes Indexed Job pod's.
var ShardEnv = [...]string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"}

// ParseShard parses a shard, I/N: shard I (0 to N-1) of N. env/N (or N
// alone) takes I from the engine's environment, the first of ShardEnv
// that is set (lookup is os.LookupEnv's form), so that a job file needs no
// shell arithmetic; a Slurm array must then count from 0 (--array=0-N-1).
// Its errors do not name the flag; they name the variable I came from.
func ParseShard(spec string, lookup func(string) (string, bool)) (Shard, error) {
	is, ns, hasIndex := strings.Cut(spec, "/")
	if !hasIndex {
		is, ns = "env", spec
	}
	hasIndex = strings.TrimSpace(is) != "env"
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil || n < 1 || n > MaxShards {
		return Shard{}, fmt.Errorf("shard count %q: want a whole number from 1 to %d (I/N, or env/N with I from %s)", ns, MaxShards, strings.Join(ShardEnv[:], " or "))
	}
	if hasIndex {
		i, err := strconv.Atoi(strings.TrimSpace(is))
		if err != nil || i < 0 || i >= n {
			return Shard{}, fmt.Errorf("shard index %q: want a whole number from 0 to %d (shards count from 0)", is, n-1)
		}
		return Shard{Index: i, Count: n}, nil
	}
	for _, name := range ShardEnv {
		v, ok := lookup(name)
		if !ok {
			continue
		}
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 || i >= n {
			return Shard{}, fmt.Errorf("shard index from %s=%q: want a whole number from 0 to %d, the shards of %d (a Slurm array counts from 0: --array=0-%d)", name, v, n-1, n, n-1)
		}
		return Shard{Index: i, Count: n}, nil
	}
	return Shard{}, errors.New("no shard index, and neither " + strings.Join(ShardEnv[:], " nor ") +
		" is set: give I/N, or run env/N as a Slurm array task or a Kubernetes Indexed Job's pod")
}

// String writes s as ParseShard reads it, I/N ("" for the whole
// evaluation).
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Has reports whether unit u (in the canonical order) is one of s's:
// u mod Count is Index; every unit of the zero Shard.
func (s Shard) Has(u int) bool {
	return s.Count == 0 || u%s.Count == s.Index
}

// Units returns s's units among total, in order.
func (s Shard) Units(total int) []int {
	var out []int
	for u := range total {
		if s.Has(u) {
			out = append(out, u)
		}
	}
	return out
}

// Check reports whether s is a shard: the zero Shard, or 0 <= Index <
// Count <= MaxShards.
func (s Shard) Check() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 || s.Count > MaxShards || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d of %d: want 0 <= shard < shards <= %d", s.Index, s.Count, MaxShards)
	}
	return nil
}
