package experiment

// Test helpers of package experiment for its external tests (package
// experiment_test), which render reports with package report.
var (
	MachineFree = machineFree
	ShardEval   = shardEval
	EvalParts   = evalParts
	OpenAll     = openAll
	FirstDiff   = firstDiff
)
