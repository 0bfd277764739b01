// Package scenario describes what an experiment runs on: a Scenario is a
// fabric (a Clos or an HPCC topology file, with fixed or random link
// failures) and the traffic generated on it for a seed, stationary or in
// phases, or a window of a recorded trace.
//
// It provides:
//   - the built-in evaluation suite (Suite, ByName): the paper's scenarios
//     and three phased ones, one of them held out of training
//     (Scenario.CheckTraining);
//   - the traffic families (Families, Family): randomized phased scenarios,
//     draw N of a family being the scenario "family-N" whose phases are
//     drawn from a PCG seeded with N (Family.Draw, Family.DrawFrom), with
//     training draws and evaluation draws that training refuses
//     (FirstTrainingDraw, FirstEvaluationDraw), ranges of draws in lists
//     of names ("family:1-200"; ParseFamilyDraws, ExpandNames) and a
//     held-out configuration (family-held);
//   - scenario files (YAML; docs/formats.md, "Scenario files": Load, Read),
//     whose scenarios may carry a recorded trace cut into windows instead
//     of generated traffic (Scenario.Trace: seed k plays window k);
//   - a Set, which resolves names through a scenario file first, then the
//     suite and the families, resolves lists of them (Set.Resolve) and
//     lists them (Set.WriteList), and picks one or a file's only one
//     (Set.Pick);
//   - a fabric and its traffic as a person writes them (Settings, the
//     fabric and traffic flags; DefaultSettings): Settings.Fabric builds
//     the fabric, Settings.Traffic its flows, errors naming the setting;
//   - a built fabric put into words (Scenario.DescribeFabric);
//   - training mixes (Curriculum) and scenarios as plain data (Record).
package scenario
