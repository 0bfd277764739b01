package learn

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"graphcc/gnn"
	"graphcc/metrics"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

// resumeTrain is a run short enough for tests that still learns across its
// checkpoints: updates start after the first round, the target network is
// refreshed at odd update counts, and the replay buffer wraps.
func resumeTrain(t testing.TB, kind string) Config {
	c := tinyTrain(kind, 3, tinyEpisode(t))
	c.Episodes, c.Warmup, c.Updates, c.TargetEvery, c.Buffer = 10, 50, 5, 7, 300
	return c
}

// trained returns the flat parameters of a result.
func trained(r *Result) []float64 {
	if r.Model != nil {
		return r.Model.Params
	}
	return newACCNet(r.ACC, nil, nil).flat
}

// sameStats compares round statistics, NaN equal to NaN.
func sameStats(a, b []EpisodeStats) bool {
	return slices.EqualFunc(a, b, func(x, y EpisodeStats) bool {
		rx, ry := statsRow(x), statsRow(y)
		for i := range rx {
			if rx[i] != ry[i] && !(math.IsNaN(rx[i]) && math.IsNaN(ry[i])) {
				return false
			}
		}
		return true
	})
}

// saved runs c, keeping every checkpoint it hands out as a file's bytes.
func saved(t *testing.T, ctx context.Context, c Config) (*Result, [][]byte, error) {
	var files [][]byte
	c.Checkpoint = func(ck *Checkpoint) error {
		var b bytes.Buffer
		n, err := ck.WriteTo(&b)
		if err != nil {
			return err
		}
		if n != int64(b.Len()) {
			t.Errorf("WriteTo reported %d bytes, wrote %d", n, b.Len())
		}
		files = append(files, b.Bytes())
		return nil
	}
	r, err := Train(ctx, c)
	return r, files, err
}

func TestTrainResumeIsExact(t *testing.T) {
	for _, tt := range []struct {
		kind  string
		set   gnn.FeatureSet
		hosts bool
	}{{"graphcc", gnn.FeaturesPaper, false}, {"acc", gnn.FeaturesPaper, false}, {"graphcc", gnn.FeaturesFlowMix, false}, {"graphcc", gnn.FeaturesPaper, true}} {
		kind := tt.kind
		t.Run(kind+"/"+tt.set.String()+"/hosts="+strconv.FormatBool(tt.hosts), func(t *testing.T) {
			config := func() Config {
				c := resumeTrain(t, kind)
				c.FeatureSet = tt.set
				c.Hosts = tt.hosts
				return c
			}
			c := config()
			whole, err := Train(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			c.CheckpointEvery = 4
			c.CheckpointMeta = map[string]string{"note": "test"}
			again, files, err := saved(t, context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(trained(again), trained(whole)) {
				t.Fatal("checkpointing changed the run")
			}
			if len(files) != 2 {
				t.Fatalf("%d checkpoints, want 2 (after episodes 4 and 8)", len(files))
			}
			for k, b := range files {
				ck, err := ReadCheckpoint(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				// 49 transitions per episode of 50 control steps
				if ck.Episodes != 4*(k+1) || ck.Meta["note"] != "test" || ck.Buffer.Added() != int64(49*ck.Episodes) ||
					ck.Buffer.Len() != min(300, 49*ck.Episodes) {
					t.Errorf("checkpoint %d: %d episodes, meta %v, %d transitions held of %d", k, ck.Episodes, ck.Meta, ck.Buffer.Len(), ck.Buffer.Added())
				}
				// Written again it is the same file.
				var w bytes.Buffer
				if _, err := ck.WriteTo(&w); err != nil || !bytes.Equal(w.Bytes(), b) {
					t.Errorf("checkpoint %d does not write back to its own bytes (%v)", k, err)
				}
				r := config()
				r.Resume = ck
				resumed, err := Train(context.Background(), r)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(trained(resumed), trained(whole)) {
					t.Errorf("resumed after %d episodes: other weights than the whole run's", ck.Episodes)
				}
				if !sameStats(resumed.Stats, whole.Stats) {
					t.Errorf("resumed after %d episodes: statistics %+v, want %+v", ck.Episodes, resumed.Stats, whole.Stats)
				}
			}
		})
	}
}

func TestTrainInterruptedCheckpoint(t *testing.T) {
	c := resumeTrain(t, "graphcc")
	whole, err := Train(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.Progress = func(st EpisodeStats) {
		if st.Episode == 6 {
			cancel()
		}
	}
	_, files, err := saved(t, ctx, c)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "after 6 episodes") {
		t.Fatalf("interrupted run: %v", err)
	}
	if len(files) != 1 {
		t.Fatalf("%d checkpoints at the interruption, want 1", len(files))
	}
	ck, err := ReadCheckpoint(bytes.NewReader(files[0]))
	if err != nil {
		t.Fatal(err)
	}
	if ck.Episodes != 6 || len(ck.Stats) != 3 {
		t.Fatalf("checkpoint of %d episodes and %d rounds, want 6 and 3", ck.Episodes, len(ck.Stats))
	}
	r := resumeTrain(t, "graphcc")
	r.Resume = ck
	resumed, err := Train(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(trained(resumed), trained(whole)) || !sameStats(resumed.Stats, whole.Stats) {
		t.Error("the run resumed from an interruption differs from the whole run")
	}

	// A checkpoint that cannot be written fails the run, naming it.
	c = resumeTrain(t, "graphcc")
	c.CheckpointEvery = 2
	c.Checkpoint = func(*Checkpoint) error { return errors.New("disk full") }
	if _, err := Train(context.Background(), c); err == nil || !strings.Contains(err.Error(), "checkpoint after 2 episodes: disk full") {
		t.Errorf("failing checkpoint: %v", err)
	}
}

func TestTrainResumeRefusesOtherRuns(t *testing.T) {
	c := resumeTrain(t, "graphcc")
	c.Episodes, c.CheckpointEvery = 4, 2
	_, files, err := saved(t, context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want []string
	}{
		{"gamma", func(c *Config) { c.Gamma = 0.5 }, []string{"gamma is 0.9 in the checkpoint, 0.5 in this run"}},
		{"seed and workers", func(c *Config) { c.Seed, c.Workers = 4, 1 },
			[]string{"seed is 3 in the checkpoint, 4 in this run", "workers is 2 in the checkpoint, 1 in this run"}},
		{"kind", func(c *Config) { c.Kind = "acc" }, []string{"kind is graphcc in the checkpoint, acc in this run"}},
		{"reward queue", func(c *Config) { c.Features.RewardQueue = 12000 }, []string{"reward_queue is 25000 in the checkpoint, 12000 in this run"}},
		{"simulator", func(c *Config) { c.Params.Window = 0 }, []string{"sim_params is"}},
		{"feature set", func(c *Config) { c.FeatureSet = gnn.FeaturesFlowMix }, []string{"feature_set is paper in the checkpoint, flowmix in this run"}},
	} {
		ck, err := ReadCheckpoint(bytes.NewReader(files[0]))
		if err != nil {
			t.Fatal(err)
		}
		r := resumeTrain(t, "graphcc")
		r.Episodes = 4
		tc.edit(&r)
		r.Resume = ck
		_, err = Train(context.Background(), r)
		if !errors.Is(err, ErrCheckpoint) {
			t.Errorf("%s: %v, want ErrCheckpoint", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want it to say %q", tc.name, err, w)
			}
		}
	}
	// The checkpoint of a finished run resumes to its end at once.
	ck, err := ReadCheckpoint(bytes.NewReader(files[1]))
	if err != nil {
		t.Fatal(err)
	}
	r := resumeTrain(t, "graphcc")
	r.Episodes, r.Resume = 4, ck
	res, err := Train(context.Background(), r)
	if err != nil || !slices.Equal(trained(res), ck.Online) || len(res.Stats) != 2 {
		t.Errorf("resuming a finished run: %v", err)
	}
	// A checkpoint written before the feature set was a setting is the
	// paper set's.
	delete(ck.Config, "feature_set")
	r.FeatureSet = gnn.FeaturesPaper
	if _, err := Train(context.Background(), r); err != nil {
		t.Errorf("resuming a checkpoint that records no feature set: %v", err)
	}
	r.FeatureSet = gnn.FeaturesFlowMix
	if _, err := Train(context.Background(), r); err == nil || !strings.Contains(err.Error(), "feature_set is paper in the checkpoint, flowmix in this run") {
		t.Errorf("resuming a checkpoint that records no feature set with flowmix: %v", err)
	}
}

// smallCheckpoint is a valid checkpoint file of a short run.
func smallCheckpoint(t testing.TB) []byte {
	c := resumeTrain(t, "graphcc")
	c.Episodes, c.CheckpointEvery, c.Buffer, c.Warmup, c.Batch = 2, 2, 8, 8, 4
	var file []byte
	c.Checkpoint = func(ck *Checkpoint) error {
		var b bytes.Buffer
		_, err := ck.WriteTo(&b)
		file = b.Bytes()
		return err
	}
	if _, err := Train(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestCheckpointFileErrors(t *testing.T) {
	good := smallCheckpoint(t)
	hlen := int(binary.LittleEndian.Uint32(good[len(CheckpointMagic)+4:]))
	body := len(CheckpointMagic) + 8 + hlen
	flip := func(i int) []byte {
		b := slices.Clone(good)
		b[i] ^= 0x40
		return b
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "not a graphcc checkpoint file"},
		{"a model file", []byte(gnn.FileMagic + "....."), "not a graphcc checkpoint file"},
		{"version", func() []byte {
			b := slices.Clone(good)
			binary.LittleEndian.PutUint32(b[len(CheckpointMagic):], 9)
			return b
		}(), "version is 9, this build reads 1"},
		{"header length", good[:len(CheckpointMagic)+8+10], "truncated in the"},
		{"in the numbers", good[:body+100], "truncated before the replay buffer"},
		{"in the buffer", good[:len(good)-20], "truncated in the replay buffer"},
		{"in the checksum", good[:len(good)-2], "truncated in the checksum"},
		{"trailing", append(slices.Clone(good), 0), "data after the checksum"},
		{"a parameter bit", flip(body + 200), "stored CRC-32"},
		{"a buffer bit", flip(len(good) - 10), "stored CRC-32"},
		{"header field", bytes.Replace(good, []byte(`"adam_t"`), []byte(`"adam_x"`), 1), `unknown field "adam_x"`},
		{"buffer shape", bytes.Replace(good, []byte(`"capacity":8`), []byte(`"capacity":0`), 1), "buffer capacity 0"},
	} {
		_, err := ReadCheckpoint(bytes.NewReader(tc.b))
		if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrCheckpoint saying %q", tc.name, err, tc.want)
		}
	}

	// Fabric tags: the header's list, and each slot's index in it (the
	// last two bytes before the checksum), checked past the checksum.
	tagged := tinyCheckpoint(t, "leaf0-spine0")
	if ck, err := ReadCheckpoint(bytes.NewReader(tagged)); err != nil || !slices.Equal(ck.Buffer.Fabrics(), []string{"", "leaf0-spine0"}) || ck.Buffer.Fabric(1) != 1 {
		t.Fatalf("tagged checkpoint: %v", err)
	}
	resum := func(b []byte) []byte {
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
		return b
	}
	badTag := slices.Clone(tagged)
	binary.LittleEndian.PutUint16(badTag[len(badTag)-6:], 2)
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"tag index", resum(badTag), "slot 1 is of fabric 2, of 2"},
		{"first tag", bytes.Replace(tagged, []byte(`["","leaf0-spine0"]`), []byte(`["leaf0-spine0",""]`), 1), `buffer fabrics ["leaf0-spine0" ""]`},
		{"one tag", bytes.Replace(tagged, []byte(`["","leaf0-spine0"]`), []byte(`[""               ]`), 1), `buffer fabrics [""]`},
		{"tag twice", bytes.Replace(tagged, []byte(`["","leaf0-spine0"]`), []byte(`["","a","a"       ]`), 1), `fabric "a" listed twice`},
		{"two headers", bytes.Replace(tagged, []byte(`["","leaf0-spine0"]}}`), []byte(`[""]}}{"a":1       }`), 1), "more than one JSON object"},
	} {
		_, err := ReadCheckpoint(bytes.NewReader(tc.b))
		if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrCheckpoint saying %q", tc.name, err, tc.want)
		}
	}

	// Save and LoadCheckpoint: atomic, the same bytes back, the path in errors.
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ckpt")
	ck, err := ReadCheckpoint(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if err := ck.Save(path); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, good) {
		t.Errorf("saved checkpoint differs from the written one (%v)", err)
	}
	if _, err := LoadCheckpoint(path); err != nil {
		t.Error(err)
	}
	if err := os.WriteFile(path, good[:len(good)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCheckpoint(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("truncated file: %v, want an error naming %s", err, path)
	}
	ck.Online = ck.Online[:1]
	if err := ck.Save(filepath.Join(dir, "bad.ckpt")); err == nil {
		t.Error("saved a checkpoint with too few parameters")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}

// tinyCheckpoint is a valid checkpoint file of a few hundred bytes: one
// round, three parameters, a buffer of two one-port transitions, the second
// tagged with fabric tag if it is not "".
func tinyCheckpoint(t testing.TB, tag string) []byte {
	b := NewReplayBuffer(3, 1, 1)
	for i := range 2 {
		x := []float64{0, 1, 2, 3, 4, 5, 6, 7, float64(i)}
		b.AddOn([]string{"", tag}[i], x, []int{i + 7}, []float64{0.5}, x)
	}
	ck := &Checkpoint{
		Config: map[string]string{"seed": "1"}, Episodes: 2, Updates: 1,
		Stats:  []EpisodeStats{{Episode: 2, Epsilon: 1, MeanReward: 0.7, Loss: math.NaN(), Updates: 1}},
		Online: []float64{1, 2, 3}, Target: []float64{1, 2, 3}, AdamM: []float64{0, 0, 0}, AdamV: []float64{1, 1, 1},
		AdamT: 1, Root: []byte{1, 2}, Sampler: []byte{3}, Buffer: b,
	}
	var w bytes.Buffer
	if _, err := ck.WriteTo(&w); err != nil {
		t.Fatal(err)
	}
	return w.Bytes()
}

func FuzzReadCheckpoint(f *testing.F) {
	tiny := tinyCheckpoint(f, "")
	f.Add(tiny)
	f.Add(tinyCheckpoint(f, "leaf0-spine0"))
	f.Add(tiny[:len(tiny)/2])
	f.Add([]byte(CheckpointMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		ck, err := ReadCheckpoint(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrCheckpoint) {
				t.Fatalf("error %v is not ErrCheckpoint", err)
			}
			return
		}
		var w bytes.Buffer
		if _, err := ck.WriteTo(&w); err != nil {
			t.Fatal(err)
		}
		ck2, err := ReadCheckpoint(&w)
		if err != nil || ck2.Episodes != ck.Episodes || !slices.Equal(ck2.Online, ck.Online) && !hasNaN(ck.Online) ||
			!slices.Equal(ck2.Buffer.Fabrics(), ck.Buffer.Fabrics()) {
			t.Fatalf("a checkpoint read does not read back: %v", err)
		}
		for i := range ck.Buffer.Len() {
			if ck2.Buffer.Fabric(i) != ck.Buffer.Fabric(i) {
				t.Fatalf("slot %d's fabric does not read back", i)
			}
		}
	})
}

func hasNaN(v []float64) bool {
	return slices.ContainsFunc(v, math.IsNaN)
}

// validateByHand runs the greedy GraphCC policy of params on the validation
// seeds' episodes, as Train's validation should, and returns the mean
// slowdown of their flows, as evaluation computes it over its seeds.
func validateByHand(t *testing.T, c Config, params []float64) float64 {
	var all []trace.FCT
	for _, seed := range c.ValidateSeeds {
		f, flows, err := c.Episode(seed)
		if err != nil {
			t.Fatal(err)
		}
		m := gnn.NewModel(nil)
		copy(m.Params, params)
		r, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Params: c.Params, Seed: seed,
			Policy: mustGraphCC(t, m, f, c.Features), Interval: c.Interval})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, r.FCT...)
	}
	return metrics.Summarize(len(all), all, nil).Slowdown.Mean
}

func TestTrainValidation(t *testing.T) {
	c := resumeTrain(t, "graphcc")
	c.ValidateSeeds, c.ValidateEvery = []uint64{11, 12}, 4
	c.CheckpointEvery = 2
	res, files, err := saved(t, context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	weights := map[int][]float64{} // after each round, from the checkpoints
	var last *Checkpoint
	for _, b := range files {
		ck, err := ReadCheckpoint(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		weights[ck.Episodes] = ck.Online
		last = ck
	}
	bestEp, best := -1, math.Inf(1)
	for _, st := range res.Stats {
		validated := st.Episode%4 == 0 || st.Episode == c.Episodes
		if validated != !math.IsNaN(st.Validation) {
			t.Errorf("round of episode %d: validation %v", st.Episode, st.Validation)
			continue
		}
		if !validated {
			continue
		}
		if want := validateByHand(t, c, weights[st.Episode]); st.Validation != want {
			t.Errorf("validation after %d episodes: %v, by hand %v", st.Episode, st.Validation, want)
		}
		t.Logf("validation after %d episodes: %v", st.Episode, st.Validation)
		if st.Validation < best {
			bestEp, best = st.Episode, st.Validation
		}
	}
	if res.Best == nil || res.BestEpisode != bestEp || !slices.Equal(res.Best.Model.Params, weights[bestEp]) {
		t.Fatalf("best: episode %d (want %d), weights of that round: %v", res.BestEpisode, bestEp, res.Best != nil && slices.Equal(res.Best.Model.Params, weights[bestEp]))
	}
	if last.BestEpisode != bestEp || last.BestValidation != best || !slices.Equal(last.Best, weights[bestEp]) {
		t.Errorf("last checkpoint's best: episode %d, %v", last.BestEpisode, last.BestValidation)
	}

	// Resumed in the middle, the run validates and selects the same.
	ck, err := ReadCheckpoint(bytes.NewReader(files[2])) // after 6 episodes: one validation done
	if err != nil {
		t.Fatal(err)
	}
	if ck.Episodes != 6 || ck.BestEpisode != 4 {
		t.Fatalf("checkpoint after %d episodes, best %d; want 6 and 4", ck.Episodes, ck.BestEpisode)
	}
	r := resumeTrain(t, "graphcc")
	r.ValidateSeeds, r.ValidateEvery, r.Resume = []uint64{11, 12}, 4, ck
	resumed, err := Train(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if !sameStats(resumed.Stats, res.Stats) || resumed.BestEpisode != res.BestEpisode || !slices.Equal(resumed.Best.Model.Params, res.Best.Model.Params) {
		t.Error("the resumed run validated or selected otherwise")
	}
	// Without validation seeds there is no best, and the checkpoint of a
	// validated run does not resume one without them.
	r = resumeTrain(t, "graphcc")
	r.Resume = ck
	if _, err := Train(context.Background(), r); err == nil || !strings.Contains(err.Error(), "validate_seeds is [11 12] in the checkpoint, [] in this run") {
		t.Errorf("resume without validation seeds: %v", err)
	}
	c = resumeTrain(t, "graphcc")
	c.Episodes = 2
	if res, err := Train(context.Background(), c); err != nil || res.Best != nil {
		t.Errorf("a run without validation seeds: best %v, %v", res.Best, err)
	}
	c.ValidateSeeds = []uint64{5, 5}
	if _, err := Train(context.Background(), c); err == nil || !strings.Contains(err.Error(), "validation seed 5 given twice") {
		t.Errorf("a validation seed twice: %v", err)
	}
	// Validation sets: each scored on its own, the round's the geometric
	// mean; never beside validation seeds.
	c.ValidateSeeds = nil
	c.ValidateSets = []ValidateSet{{Name: "a", Episode: c.Episode, Seeds: []uint64{11}}, {Name: "b", Episode: c.Episode, Seeds: []uint64{12}}}
	res, err = Train(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	end := res.Stats[len(res.Stats)-1]
	if len(end.ValidationBy) != 2 || math.Abs(end.Validation-math.Sqrt(end.ValidationBy[0]*end.ValidationBy[1])) > 1e-12*end.Validation || res.Best == nil {
		t.Errorf("validation %g of sets %v, best %v", end.Validation, end.ValidationBy, res.Best != nil)
	}
	if fp := configFingerprint(&c); fp["validate_sets"] != "a:[11] b:[12]" {
		t.Errorf("fingerprint of the sets %q", fp["validate_sets"])
	}
	for _, tc := range []struct {
		edit func(*Config)
		err  string
	}{
		{func(c *Config) { c.ValidateSeeds = []uint64{1} }, "validation seeds and validation sets: give one of them"},
		{func(c *Config) { c.ValidateSets[1].Seeds = nil }, `validation set "b" has no episodes or no seeds`},
		{func(c *Config) { c.ValidateSets[0].Seeds = []uint64{3, 3} }, "validation seed 3 given twice"},
	} {
		bad := c
		bad.ValidateSets = slices.Clone(c.ValidateSets)
		tc.edit(&bad)
		if _, err := Train(context.Background(), bad); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("error %v, want one containing %q", err, tc.err)
		}
	}
	// ACC validates its own greedy policy.
	c = resumeTrain(t, "acc")
	c.Episodes, c.ValidateSeeds, c.ValidateEvery = 4, []uint64{11}, 2
	res, err = Train(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Best == nil || len(res.Best.ACC) != len(res.ACC) || (res.BestEpisode != 2 && res.BestEpisode != 4) ||
		math.IsNaN(res.Stats[0].Validation) || math.IsNaN(res.Stats[1].Validation) {
		t.Errorf("ACC validation: best after %d episodes, stats %+v", res.BestEpisode, res.Stats)
	}
}

// fullCheckpoint is the checkpoint of a default training run once its
// replay buffer is full: the default Clos, DefaultConfig's buffer.
func fullCheckpoint(b *testing.B) *Checkpoint {
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		b.Fatal(err)
	}
	ports, agents := len(f.Ports), len(f.Agents())
	buf := NewReplayBuffer(DefaultConfig().Buffer, ports, agents)
	x := make([]float64, ports*gnn.NumFeatures)
	for i := range x {
		x[i] = float64(i%7) / 7
	}
	acts, rw := make([]int, agents), make([]float64, agents)
	for range buf.Cap() {
		buf.Add(x, acts, rw, x)
	}
	n := len(gnn.NewModel(nil).Params)
	return &Checkpoint{Config: map[string]string{}, Episodes: 160, Stats: make([]EpisodeStats, 80),
		Online: make([]float64, n), Target: make([]float64, n), AdamM: make([]float64, n), AdamV: make([]float64, n),
		Buffer: buf, BestEpisode: -1}
}

// BenchmarkCheckpointSave writes a full-size checkpoint to a file, as
// graphcc train --checkpoint does (atomically, synced).
func BenchmarkCheckpointSave(b *testing.B) {
	ck := fullCheckpoint(b)
	path := filepath.Join(b.TempDir(), "run.ckpt")
	for b.Loop() {
		if err := ck.Save(path); err != nil {
			b.Fatal(err)
		}
	}
	if st, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(st.Size())/1e6, "MB")
	}
}

// BenchmarkCheckpointLoad reads a full-size checkpoint file.
func BenchmarkCheckpointLoad(b *testing.B) {
	path := filepath.Join(b.TempDir(), "run.ckpt")
	if err := fullCheckpoint(b).Save(path); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := LoadCheckpoint(path); err != nil {
			b.Fatal(err)
		}
	}
}
