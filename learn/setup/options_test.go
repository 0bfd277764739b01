package setup

import (
	"context"
	"strings"
	"testing"

	"graphcc/learn"
	"graphcc/policy"
	"graphcc/scenario"
)

// TestResolveErrors checks every setting alone and in combination, each
// error naming the setting and its value.
func TestResolveErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*Options)
		want string
	}{
		{"zero episodes", func(o *Options) { o.Config.Episodes = 0 }, "--episodes 0: must be positive (the trainer would take its default, 200, in its place)"},
		{"zero lr", func(o *Options) { o.Config.LR = 0 }, "--lr 0: must be positive (the trainer would take its default, 0.001, in its place)"},
		{"zero buffer", func(o *Options) { o.Config.Buffer = 0 }, "--buffer 0: must be positive (the trainer would take its default, 20000, in its place)"},
		{"zero eps", func(o *Options) { o.Config.EpsStart, o.Config.EpsEnd = 0, 0 }, "--eps-start 0 with --eps-end 0: the trainer would take its defaults, 1 and 0.02, in their place"},
		{"workers", func(o *Options) { o.Config.Workers = -1 }, "--workers -1: must not be negative"},
		{"scenario", func(o *Options) { o.Scenario = "nope" }, `--scenario: unknown scenario "nope"`},
		{"list", func(o *Options) { o.Scenario = "nope,fb60-incast" }, "--scenario nope,fb60-incast: "},
		{"file", func(o *Options) { o.Scenario = "" }, "--scenario-file  holds 0 scenarios (): name one with --scenario"},
		{"features", func(o *Options) { o.Features = "x" }, "--features: "},
		{"acc features", func(o *Options) { o.Config.Kind, o.Features = "acc", "flowmix" }, "--features flowmix: only --kind graphcc takes a feature set"},
		{"acc actions", func(o *Options) { o.Config.Kind, o.Actions = "acc", "rpc" }, "--actions rpc: only --kind graphcc takes another action set"},
		{"actions", func(o *Options) { o.Actions = "x" }, "--actions: "},
		{"reward", func(o *Options) { o.Reward = "x" }, "--reward: "},
		{"objective", func(o *Options) { o.Objective = "x" }, "--objective: "},
		{"reward queue", func(o *Options) { o.RewardQueueKB = -1 }, "--reward-queue-kb -1: must be a finite number, not negative"},
		{"acc hosts", func(o *Options) { o.Config.Kind, o.Config.Hosts = "acc", true }, "--hosts: only --kind graphcc has a host head"},
		{"host actions", func(o *Options) { o.HostActions = "x" }, "--host-actions: "},
		{"validate every", func(o *Options) { o.ValidateEvery = 0 }, "--validate-every 0: must be at least 1"},
		{"validate seeds", func(o *Options) { o.ValidateSeeds = []uint64{1001} }, "--validate-seeds: 1001 is one of eval's seeds"},
		{"resume", func(o *Options) { o.Resume = "/nonexistent/ck" }, "--resume: "},
		{"no teacher", func(o *Options) { o.Objective = "imitate" }, "--objective imitate: needs --teacher, the policy to copy"},
		{"teacher alone", func(o *Options) { o.Teacher = "static" }, "--teacher: only with --objective imitate (not port)"},
		{"bad teacher", func(o *Options) { o.Objective, o.Teacher = "imitate", "nope" }, "--teacher: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := DefaultOptions()
			c.set(&o)
			_, err := o.Resolve(context.Background(), scenario.Set{}, policy.Env{}, "--")
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("Resolve: %v; want %q...", err, c.want)
			}
		})
	}
}

// TestResolve resolves one scenario and a curriculum into their configs.
func TestResolve(t *testing.T) {
	o := DefaultOptions()
	o.ValidateSeeds, o.RewardQueueKB = []uint64{2001}, 30
	r, err := o.Resolve(context.Background(), scenario.Set{}, policy.Env{}, "--")
	if err != nil {
		t.Fatal(err)
	}
	c := r.Config
	if r.Info.Scenario != o.Scenario || len(r.Scenarios) != 1 || c.Fabric == nil || c.Episode == nil || c.Seed != 1 ||
		len(c.ValidateSeeds) != 1 || c.ValidateEvery != 10 || c.Features.RewardQueue != 30000 || c.Shape != learn.Convex {
		t.Errorf("one scenario: info %+v, config %+v", r.Info, c)
	}
	o.Scenario = scenario.CurriculumName
	if r, err = o.Resolve(context.Background(), scenario.Set{}, policy.Env{}, "--"); err != nil {
		t.Fatal(err)
	}
	if r.Info.Scenario != scenario.CurriculumName || len(r.Info.Curriculum) < 2 || len(r.Config.ValidateSets) != len(r.Scenarios) || r.Config.ValidateSeeds != nil {
		t.Errorf("curriculum: info %+v, %d validation sets", r.Info, len(r.Config.ValidateSets))
	}
}

// TestExplain words a run without updates in the settings.
func TestExplain(t *testing.T) {
	r := &Run{prefix: "--"}
	for _, c := range []struct {
		e    learn.NoUpdatesError
		want string
	}{
		{learn.NoUpdatesError{Episodes: 5, Warmup: 1000, Batch: 32, Buffer: 500}, "--buffer 500 gives 0 learning updates: the first comes after --warmup 1000 transitions, more than the replay buffer holds; raise --buffer to at least 1000, or lower --warmup"},
		{learn.NoUpdatesError{Episodes: 5, Warmup: 10, Batch: 32, Buffer: 5000}, "--episodes 5 gave 0 learning updates: the first comes after --batch 32 transitions, and the episodes gave none"},
		{learn.NoUpdatesError{Episodes: 5, Warmup: 1000, Batch: 32, Buffer: 5000, Ran: true, Transitions: 100, MinEpisodes: 50}, "--episodes 5 gave 0 learning updates: the first comes after --warmup 1000 transitions, and they gave 100 (the scenario's flows finished before the episodes' end); raise --episodes to at least 50 (at that rate), or lower --warmup"},
		{learn.NoUpdatesError{Episodes: 5, Warmup: 1000, Batch: 32, Buffer: 5000, PerEpisode: 250, MinEpisodes: 4}, "--episodes 5 gives 0 learning updates: the first comes after --warmup 1000 transitions, and an episode gives at most 250; raise --episodes to at least 4, or lower --warmup"},
	} {
		e := c.e
		if got := r.Explain(&e); got == nil || !strings.HasPrefix(got.Error(), c.want) {
			t.Errorf("Explain(%+v) = %v; want %q", c.e, got, c.want)
		}
	}
}
