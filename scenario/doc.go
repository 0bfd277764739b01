// Package scenario describes what an experiment runs on: a Scenario is a
// fabric (a Clos or an HPCC topology file, with fixed or random link
// failures) and the traffic generated on it for a seed, stationary or in
// phases. It holds the built-in evaluation suite (the paper's scenarios
// and three phased ones, one of them held out of training) and reads
// scenario files (YAML; docs/formats.md, "Scenario files"). A Set resolves names through a scenario file first,
// then the suite, resolves lists of them (Set.Resolve) and lists them
// (Set.WriteList). Scenario.DescribeFabric puts a built fabric into words.
package scenario
