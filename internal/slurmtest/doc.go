// Package slurmtest starts a one-node Slurm cluster on this machine for a
// test: munged with a key of its own, slurmctld and slurmd from Debian's
// slurm-wlm, with a generated slurm.conf, ports on loopback and every file
// (state, spool, logs, PIDs, the MUNGE socket) in a temporary directory.
// The cluster has its own configuration (SLURM_CONF) and MUNGE socket, so
// a system Slurm on the same machine is left alone.
//
// A test calls Start, submits jobs through Cluster.Submit (or runs the
// Slurm commands it wants with Cluster.Command, whose environment points at
// the cluster), waits for them with Cluster.Wait, and leaves the rest to
// the cleanup Start registers: it cancels the jobs, stops the daemons it
// started, and fails the test if any process it started (a daemon, a job
// step, a job's program) is still running, after killing it.
//
// Like the other privileged tests (package privtest), a test skips, naming
// what is missing, unless it runs as root with munged, slurmctld, slurmd
// and Slurm's commands on PATH; GRAPHCC_REQUIRE_PRIV=1 turns the skip into
// a failure.
package slurmtest
