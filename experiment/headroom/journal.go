package headroom

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"graphcc/experiment/tune"
	"graphcc/internal/fileio"
	"graphcc/policy"
	"graphcc/scenario"
)

// Journal is what a measurement has simulated so far, to resume from
// (Config.Journal, Config.Checkpoint): the search's result and the score
// of every schedule run. A score is the mean slowdown over the flows of
// every selection seed together, as the search scores its runs; JSON
// numbers round-trip float64s exactly, so a resumed measurement decides as
// an uninterrupted one.
type Journal struct {
	// Key names the measurement the journal is of (Config.Key).
	Key string `json:"key"`
	// Build is the graphcc build that wrote it, which the caller may
	// check; Measure leaves it as it is.
	Build string `json:"build,omitempty"`
	// Tune is the search's result, once it has finished (nil with
	// Config.Tuned).
	Tune *tune.Result `json:"tune,omitempty"`
	// Scores are the schedules' scores by spec.
	Scores map[string]float64 `json:"scores"`
	// LOO are, by spec, the mean slowdowns leaving out each selection
	// seed in turn of the schedules the descent ran and of the best
	// constant, where known: the in-sample gain's interval takes the
	// schedule's and the constant's from here instead of running them
	// again. Absent from journals written before it was recorded.
	LOO map[string][]float64 `json:"loo,omitempty"`
}

// keepLOO records loo as spec's in j, unless it is nil or has a NaN (a
// seed whose others ran no flow), which JSON cannot hold.
func (j *Journal) keepLOO(spec string, loo []float64) {
	if loo == nil || slices.ContainsFunc(loo, math.IsNaN) {
		return
	}
	if j.LOO == nil {
		j.LOO = map[string][]float64{}
	}
	j.LOO[spec] = loo
}

// ReadJournal reads a journal written by WriteJSON.
func ReadJournal(r io.Reader) (*Journal, error) {
	var j Journal
	if err := json.NewDecoder(r).Decode(&j); err != nil {
		return nil, fmt.Errorf("damaged journal: %w", err)
	}
	if j.Scores == nil {
		j.Scores = map[string]float64{}
	}
	return &j, nil
}

// WriteJSON writes j as indented JSON.
func (j *Journal) WriteJSON(w io.Writer) error { return fileio.WriteJSON(w, j) }

// Key returns what names c's measurement for its journal: a hash of its
// scenario, hardware, selection and report seeds and search, the fields
// its scores and search depend on (c's defaults filled in).
func (c Config) Key() (string, error) {
	if err := c.setDefaults(); err != nil {
		return "", fmt.Errorf("headroom: %w", err)
	}
	rec, err := scenario.NewRecord(c.Scenario)
	if err != nil {
		return "", fmt.Errorf("headroom: %w", err)
	}
	t := c.tuneConfig()
	b, err := json.Marshal(struct {
		Scenario     scenario.Record `json:"scenario"`
		Hardware     string          `json:"hardware"`
		Seeds        []uint64        `json:"seeds"`
		ConfirmSeeds []uint64        `json:"confirm_seeds"`
		Grid         []tune.Setting  `json:"grid"`
		Refine, Top  int
		Joint        bool
	}{rec, policy.Hardware(c.Params, c.Interval), c.SelectSeeds, t.ConfirmSeeds, c.Grid, c.Refine, c.Top, c.Joint()})
	if err != nil {
		return "", fmt.Errorf("headroom: %w", err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// Resume makes c resumable through the journal file path: it reads the
// journal there, if any, refusing one of another measurement (Key) or
// another build, or starts one of build (creating path's directory); and
// it sets c.Checkpoint to write the journal there (atomically) after
// every step.
func Resume(c *Config, path, build string) error {
	key, err := c.Key()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	c.Checkpoint = func(j *Journal) error { return fileio.WriteAtomic(path, j.WriteJSON) }
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		c.Journal = &Journal{Key: key, Build: build, Scores: map[string]float64{}}
		return nil
	} else if err != nil {
		return err
	}
	defer f.Close()
	if c.Journal, err = ReadJournal(f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if c.Journal.Key != key || c.Journal.Build != build {
		return fmt.Errorf("%s is the journal of another measurement or build: remove it to start again", path)
	}
	return nil
}

// LoadTuned reads a tune result (tune.Result.WriteJSON's file) for
// Config.Tuned.
func LoadTuned(path string) (*tune.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r tune.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.BestPolicy == "" || len(r.Runs) == 0 {
		return nil, fmt.Errorf("%s: not a tune result (no best_policy, no runs)", path)
	}
	return &r, nil
}
