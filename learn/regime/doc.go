// Package regime builds imitation teachers for phased traffic from the
// labels of its phases' regimes: a teacher that knows a family's traffic
// (scenario.Family) and keeps a base configuration where no departure
// was measured to win.
//
// # Regimes
//
// A Regime is what a phase of phased traffic is, coarsely: its workload
// (one of the four built-in ones), its load band (Low up to 45 %, Mid up to
// 65 %, High above) and whether it has incasts. Of classifies a phase; a
// mixture of workloads has no regime. All lists the 24 regimes, and
// ScenarioFile writes a scenario file (docs/formats.md) of one stationary
// scenario per regime at the top of its band's loads (Regime.Load),
// named by Regime.Scenario, for graphcc eval to measure candidates on.
//
// # Labels
//
// A Table maps regimes to labels, policy specs of fixed configurations
// ("static:KMIN,KMAX,PMAX+dcqcn:..."), with a base label for the phases of
// no regime or of no label. Choose builds one from measured ratios to the
// base (ReadRatios reads them from graphcc eval's JSON): a regime keeps the
// base unless its best candidate is below the base by more than a margin.
//
// # Teachers
//
// Table.Teacher gives a scenario's teacher: the label of its regime for a
// stationary scenario, and for a phased one a sched: spec that plays each
// phase's label from the phase's start (scenario.Scenario.PhaseStarts).
// WriteTeacher writes a tuned:DIR teacher directory for graphcc train
// --teacher: one file NAME.json per scenario, holding the teacher as its
// best_policy.
package regime
