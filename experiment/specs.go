package experiment

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"graphcc/policy"
)

// PolicySpecs are an evaluation's policies as a person writes them
// (eval's --policies, --reference and --yardsticks): Policies, each a
// comma-separated list of policy specs (grid among them expanded,
// policy.ExpandGrid); Reference, the spec of the policy the report
// normalizes to ("" for the default); Yardsticks, comma-separated specs of
// the policies every policy is measured against besides the reference, or
// AutoYardsticks for the default ones of the hardware.
type PolicySpecs struct {
	Policies              []string
	Reference, Yardsticks string
}

// Resolve parses s's specs in env (policy.Parse) into c's Policies,
// Reference and Yardsticks. A policy may be given once; the reference
// must be one of the policies, and defaults to graphcc if it is among
// them, as in the GraphCC paper (else Evaluate takes the first); the
// yardsticks come static first, and those not among the policies join
// them; no yardsticks without Yardsticks. AutoYardsticks takes
// DefaultYardstick's for c's Params and Interval (set them first), and its
// note, Config.YardstickNote: static and it, or none. Errors name the setting prefix
// and its key: policies, reference, yardsticks (with prefix "--", eval's
// flags).
func (s PolicySpecs) Resolve(ctx context.Context, env policy.Env, c *Config, prefix string) error {
	seen := map[string]bool{}
	c.Policies = nil
	for _, v := range s.Policies {
		for _, spec := range policy.ExpandGrid(policy.Split(v)) {
			np, err := policy.Parse(ctx, spec, env)
			if err != nil {
				return fmt.Errorf("%spolicies %s: %w", prefix, v, err)
			}
			if seen[np.Name] {
				return fmt.Errorf("%spolicies %s: %s given twice", prefix, v, np.Name)
			}
			seen[np.Name] = true
			c.Policies = append(c.Policies, np)
		}
	}
	if len(c.Policies) == 0 {
		return fmt.Errorf("%spolicies: no policy given", prefix)
	}
	c.Reference = policy.Canonical(s.Reference)
	if s.Reference != "" && !seen[c.Reference] {
		return fmt.Errorf("%sreference %s: not one of %spolicies", prefix, s.Reference, prefix)
	}
	if c.Reference == "" && seen["graphcc"] {
		c.Reference = "graphcc"
	}
	c.YardstickNote = ""
	if strings.TrimSpace(s.Yardsticks) == AutoYardsticks {
		spec, note, err := DefaultYardstick(c.Params, c.Interval)
		if err != nil {
			return fmt.Errorf("%syardsticks %s: %w", prefix, AutoYardsticks, err)
		}
		s.Yardsticks, c.YardstickNote = spec, note
	}
	var err error
	c.Yardsticks, err = s.addYardsticks(ctx, env, c, seen, prefix)
	return err
}

// addYardsticks resolves s.Yardsticks into the yardsticks' names, static
// first, and adds to c.Policies each one not among them (seen: their
// names, which it updates). None without yardsticks.
func (s PolicySpecs) addYardsticks(ctx context.Context, env policy.Env, c *Config, seen map[string]bool, prefix string) ([]string, error) {
	if strings.TrimSpace(s.Yardsticks) == "" {
		return nil, nil
	}
	var names []string
	for i, spec := range append([]string{"static"}, policy.Split(s.Yardsticks)...) {
		np, err := policy.Parse(ctx, spec, env)
		if err != nil {
			return nil, fmt.Errorf("%syardsticks %s: %w", prefix, s.Yardsticks, err)
		}
		if slices.Contains(names, np.Name) {
			if np.Name == "static" && i > 0 {
				continue // static is always first
			}
			return nil, fmt.Errorf("%syardsticks %s: %s given twice", prefix, s.Yardsticks, np.Name)
		}
		names = append(names, np.Name)
		if !seen[np.Name] {
			seen[np.Name] = true
			c.Policies = append(c.Policies, np)
		}
	}
	return names, nil
}

// CheckSeeds refuses seeds, an evaluation's, that are none or hold one
// twice; name (a flag, "--seeds") heads its errors.
func CheckSeeds(name string, seeds []uint64) error {
	if len(seeds) == 0 {
		return fmt.Errorf("%s: no seed given", name)
	}
	seen := map[uint64]bool{}
	for _, s := range seeds {
		if seen[s] {
			return fmt.Errorf("%s: %d given twice", name, s)
		}
		seen[s] = true
	}
	return nil
}
