package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"graphcc/scenario"
)

// fileInputs is Named.Inputs of a policy that loads the file at path (a
// model file), "sha256:HEX" of its bytes; nil for "" (the model built
// into the binary, which the build identifies).
func fileInputs(path string) func(scenario.Scenario) (string, error) {
	if path == "" {
		return nil
	}
	return func(scenario.Scenario) (string, error) { return FileDigest(path) }
}

// FileDigest returns "sha256:HEX", the SHA-256 of the file at path.
func FileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// accInputs is Named.Inputs of acc trained on the spot: its episodes and
// the trainer's parallelism, GOMAXPROCS, on which its floating-point
// summation order, and so its agents, depend (learn.Config.Workers).
// The simulator it trains in is the evaluation's, recorded apart.
func accInputs(env Env) func(scenario.Scenario) (string, error) {
	episodes := env.ACCEpisodes
	if episodes == 0 {
		episodes = DefaultACCEpisodes
	}
	return func(scenario.Scenario) (string, error) {
		return fmt.Sprintf("trained on the scenario: %d episodes, GOMAXPROCS %d", episodes, runtime.GOMAXPROCS(0)), nil
	}
}

// tunedInputs is Named.Inputs of tuned:FILE and tuned:DIR: the
// best_policy each scenario runs, which is all of the result file that a
// run depends on.
func tunedInputs(args string) func(scenario.Scenario) (string, error) {
	return func(sc scenario.Scenario) (string, error) {
		if r, ok, err := loadShipped(args); ok {
			if err != nil {
				return "", err
			}
			return "best_policy " + Canonical(r.spec), nil
		}
		path := args
		if st, err := os.Stat(args); err == nil && st.IsDir() {
			if path, err = tunedFile(args, sc.Name); err != nil {
				return "", err
			}
		}
		best, err := tunedBest(path)
		if err != nil {
			return "", err
		}
		return "best_policy " + Canonical(best), nil
	}
}

// tunedBest returns the best_policy of the tune result file at path.
func tunedBest(path string) (string, error) {
	r, err := loadTuned(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("tune result %s: %w", path, err)
	}
	return r.spec, err
}
