package slurmtest

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
)

// NodeName is the cluster's one node; slurmd runs as it (slurmd -N), so
// the machine's host name does not matter.
const NodeName = "localhost"

// Partition is the cluster's one partition, the default.
const Partition = "test"

// Config is what a cluster's slurm.conf is generated from.
type Config struct {
	// Dir holds every file the daemons write: state, spool, logs, PID
	// files, the MUNGE socket.
	Dir string
	// CtldPort and SlurmdPort are the loopback ports of slurmctld and
	// slurmd.
	CtldPort, SlurmdPort int
	// CPUs is the node's CPU count (the machine's, runtime.NumCPU).
	CPUs int
	// User runs the daemons (SlurmUser, SlurmdUser): root here.
	User string
}

// Paths of the files under Config.Dir.
func (c Config) confPath() string    { return filepath.Join(c.Dir, "slurm.conf") }
func (c Config) mungeDir() string    { return filepath.Join(c.Dir, "munge") }
func (c Config) mungeSocket() string { return filepath.Join(c.mungeDir(), "munge.socket") }
func (c Config) logDir() string      { return filepath.Join(c.Dir, "log") }

// SlurmConf returns the slurm.conf of a one-node cluster: slurmctld and
// slurmd on loopback at the configured ports, authenticated through the
// cluster's own MUNGE socket, every file under Dir, processes tracked
// without cgroups (proctrack/linuxproc, task/none: containers may lack
// cgroup delegation), cores allocated by select/cons_tres, no accounting,
// and finished jobs kept for 10 minutes so that Wait sees their states.
func (c Config) SlurmConf() string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("# slurm.conf of a one-node test cluster (graphcc/internal/slurmtest)")
	line("ClusterName=graphcctest")
	line("SlurmctldHost=%s(127.0.0.1)", NodeName)
	line("SlurmctldPort=%d", c.CtldPort)
	line("SlurmdPort=%d", c.SlurmdPort)
	line("SlurmUser=%s", c.User)
	line("SlurmdUser=%s", c.User)
	line("AuthType=auth/munge")
	line("CredType=cred/munge")
	line("AuthInfo=socket=%s", c.mungeSocket())
	line("StateSaveLocation=%s", filepath.Join(c.Dir, "state"))
	line("SlurmdSpoolDir=%s", filepath.Join(c.Dir, "spool"))
	line("SlurmctldPidFile=%s", filepath.Join(c.Dir, "slurmctld.pid"))
	line("SlurmdPidFile=%s", filepath.Join(c.Dir, "slurmd.pid"))
	line("SlurmctldLogFile=%s", filepath.Join(c.logDir(), "slurmctld.log"))
	line("SlurmdLogFile=%s", filepath.Join(c.logDir(), "slurmd.log"))
	line("SlurmctldDebug=info")
	line("SlurmdDebug=info")
	line("ProctrackType=proctrack/linuxproc")
	line("TaskPlugin=task/none")
	line("JobAcctGatherType=jobacct_gather/none")
	line("AccountingStorageType=accounting_storage/none")
	line("JobCompType=jobcomp/none")
	line("MpiDefault=none")
	line("MailProg=/bin/true")
	line("SelectType=select/cons_tres")
	line("SelectTypeParameters=CR_Core")
	line("SchedulerType=sched/builtin")
	line("ReturnToService=2")
	line("MinJobAge=600")
	line("NodeName=%s NodeAddr=127.0.0.1 CPUs=%d RealMemory=1000 State=UNKNOWN", NodeName, c.CPUs)
	line("PartitionName=%s Nodes=%s Default=YES MaxTime=INFINITE State=UP", Partition, NodeName)
	return b.String()
}

// freePorts returns n distinct TCP ports on loopback that were free a
// moment ago: the kernel picks each by a listen on port 0, and all are
// closed together, so none is picked twice. Another process may take one
// before the daemons bind it; the daemon then fails to start, and so does
// the test, saying so.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("pick a free loopback port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
