package topo

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// maxRandomDraws bounds the draws FailRandom makes before giving up.
const maxRandomDraws = 1000

// FailLinks returns a new Fabric without the named links (either "a-b" or
// "b-a"). The remaining links keep their names and order and are
// renumbered. It fails on an unknown name, on a link named twice (a typo for
// another link, most likely), and when the result would leave some host pair
// without a path.
func (f *Fabric) FailLinks(names ...string) (*Fabric, error) {
	g, _, err := f.failLinks(names)
	return g, err
}

// failLinks is FailLinks that also reports whether an error is a refused
// disconnection.
func (f *Fabric) failLinks(names []string) (*Fabric, bool, error) {
	failed := make(map[LinkID]bool, len(names))
	var canon []string
	for _, name := range names {
		id, ok := f.LinkByName(name)
		if !ok {
			return nil, false, fmt.Errorf("fail links: unknown link %q", name)
		}
		if failed[id] {
			return nil, false, fmt.Errorf("fail links: link %s is named twice", f.Links[id].Name)
		}
		failed[id] = true
		canon = append(canon, f.Links[id].Name)
	}
	links := make([]Link, 0, len(f.Links)-len(failed))
	for _, l := range f.Links {
		if !failed[l.ID] {
			l.ID = LinkID(len(links))
			links = append(links, l)
		}
	}
	g, err := New(f.Nodes, links, f.Buffer)
	if err == nil {
		return g, false, nil
	}
	what := strings.Join(canon, ", ")
	var un *unreachableError
	if errors.As(err, &un) {
		return nil, true, fmt.Errorf("failing %s disconnects %s from %s", what, un.aName, un.bName)
	}
	var nl *noLinkError
	if errors.As(err, &nl) {
		for _, h := range f.hosts {
			if h != nl.host {
				return nil, true, fmt.Errorf("failing %s disconnects %s from %s", what, nl.name, f.Nodes[h].Name)
			}
		}
		return nil, true, fmt.Errorf("failing %s leaves host %s without a link", what, nl.name)
	}
	return nil, false, fmt.Errorf("failing %s: %w", what, err)
}

// FailRandom returns a new Fabric without k distinct switch-switch links
// drawn uniformly at random, deterministically from seed with
// rand.New(rand.NewPCG(seed, 0x746f706f)). Draws that would disconnect a host
// pair are redrawn: when there are at most 1000 k-subsets it tries all of
// them in a random order (so an error means no such set exists), otherwise
// it makes up to 1000 independent draws.
func (f *Fabric) FailRandom(k int, seed uint64) (*Fabric, error) {
	var cands []LinkID
	for _, l := range f.Links {
		if f.Nodes[l.A].Switch && f.Nodes[l.B].Switch {
			cands = append(cands, l.ID)
		}
	}
	n := len(cands)
	if k < 0 || k > n {
		return nil, fmt.Errorf("fail random: cannot fail %d of %d switch-switch links", k, n)
	}
	rng := rand.New(rand.NewPCG(seed, 0x746f706f))
	try := func(set []LinkID) (*Fabric, bool, error) {
		set = slices.Clone(set)
		slices.Sort(set)
		names := make([]string, len(set))
		for i, id := range set {
			names[i] = f.Links[id].Name
		}
		return f.failLinks(names)
	}
	if subsets := binomial(n, k, maxRandomDraws+1); subsets <= maxRandomDraws {
		all := combinations(cands, k)
		rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		for _, set := range all {
			g, disconnect, err := try(set)
			if !disconnect {
				return g, err
			}
		}
		return nil, fmt.Errorf("fail random: every set of %d of the %d switch-switch links disconnects a host pair", k, n)
	}
	perm := make([]LinkID, n)
	for range maxRandomDraws {
		copy(perm, cands)
		for i := range k {
			j := i + rng.IntN(n-i)
			perm[i], perm[j] = perm[j], perm[i]
		}
		g, disconnect, err := try(perm[:k])
		if !disconnect {
			return g, err
		}
	}
	return nil, fmt.Errorf("fail random: %d draws of %d of the %d switch-switch links all disconnect a host pair", maxRandomDraws, k, n)
}

// binomial returns C(n, k), or limit if it is at least limit.
func binomial(n, k, limit int) int {
	k = min(k, n-k)
	c := 1
	for i := 1; i <= k; i++ {
		// c*(n-k+i)/i stays exact: c is C(n-k+i-1, i-1).
		c = c * (n - k + i) / i
		if c >= limit {
			return limit
		}
	}
	return c
}

// combinations returns every k-subset of s, each in s's order.
func combinations(s []LinkID, k int) [][]LinkID {
	var all [][]LinkID
	cur := make([]LinkID, 0, k)
	var rec func(start int)
	rec = func(start int) {
		if len(cur) == k {
			all = append(all, slices.Clone(cur))
			return
		}
		for i := start; i <= len(s)-(k-len(cur)); i++ {
			cur = append(cur, s[i])
			rec(i + 1)
			cur = cur[:len(cur)-1]
		}
	}
	rec(0)
	return all
}

// SameLinks returns nil if f has exactly ref's links, by name and in
// order (the same fabric, or one built the same way), and otherwise an
// error naming the first difference.
func (f *Fabric) SameLinks(ref *Fabric) error {
	if f == ref {
		return nil
	}
	for i := range max(len(f.Links), len(ref.Links)) {
		switch {
		case i >= len(f.Links):
			return fmt.Errorf("it lacks link %s", ref.Links[i].Name)
		case i >= len(ref.Links):
			return fmt.Errorf("it has link %s, which is not there", f.Links[i].Name)
		case f.Links[i].Name != ref.Links[i].Name:
			return fmt.Errorf("its link %d is %s, not %s", i, f.Links[i].Name, ref.Links[i].Name)
		}
	}
	return nil
}
