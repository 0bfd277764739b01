// Package trace holds the records a run reads and writes, in HPCC's file
// formats: flows (flow.txt: source, destination, priority group, port,
// size, start) and flow completion times (fct.txt), with the standalone
// FCT that slowdowns divide by. The simulator, the testbed's hosts and the
// CLI share them; docs/formats.md describes the files. A recorded trace
// cut into windows of one length (Windows, ReadWindows) is the traffic of
// a scenario of a scenario file, one window per seed.
package trace
