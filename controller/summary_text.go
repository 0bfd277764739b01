package controller

import (
	"fmt"
	"io"
)

// WriteText writes the summary as testbed run prints each policy's: the
// simulator's table (metrics.Summary.WriteTable), the control loop's
// timings and, under per-switch agents, the agents' statistics.
func (s *TestbedSummary) WriteText(w io.Writer) error {
	if err := s.WriteTable(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "control steps %d (%d late), step %.2f ms mean, %.2f ms p99 (read %.2f, decide %.3f, write %.2f), %d ECN entries written; %d flows incomplete; switch threads %s\n\n",
		s.ControlSteps, s.LateSteps, s.StepMsMean, s.StepMsP99, s.ReadMsMean, s.DecideMsMean, s.WriteMsMean, s.ECNWrites, s.Incomplete, s.SwitchSched)
	if s.Agents == AgentsPerSwitch {
		fmt.Fprintf(w, "agents per switch: %d processes (%d ended early), %d steps, %d messages (%d bytes), %d late, %d stale; round %.2f ms mean, %.2f ms p99; K rounds %.2f ms mean, %.2f ms p99; %d decision mismatches; %d port-steps on the static fallback\n",
			s.AgentProcesses, s.AgentFailures, s.AgentSteps, s.AgentMessages, s.AgentMessageBytes, *s.LateMessages, s.StaleMessages,
			s.AgentRoundMsMean, s.AgentRoundMsP99, s.AgentRoundsMsMean, s.AgentRoundsMsP99, *s.DecisionMismatches, s.AgentStaticPorts)
		for k, m := range s.AgentRoundMsMeanByRound {
			fmt.Fprintf(w, "round %d: %.2f ms mean, %.2f ms p99", k+1, m, s.AgentRoundMsP99ByRound[k])
			if k < len(s.AgentOneWayMsByRound) {
				fmt.Fprintf(w, "; its messages send -> neighbour's client %.2f ms mean, %.2f ms p99", s.AgentOneWayMsByRound[k][0], s.AgentOneWayMsByRound[k][1])
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "where it goes (ms mean/p99): step start late %.2f/%.2f, counter read %.2f/%.2f; per message: send %.3f/%.3f, send -> neighbour's client %.2f/%.2f, client -> its round %.2f/%.2f\n",
			s.AgentStartMs[0], s.AgentStartMs[1], s.AgentReadMs[0], s.AgentReadMs[1], s.AgentSendMs[0], s.AgentSendMs[1],
			s.AgentOneWayMs[0], s.AgentOneWayMs[1], s.AgentHandoffMs[0], s.AgentHandoffMs[1])
		if s.HostDecisionMismatches != nil {
			fmt.Fprintf(w, "hosts (the leaves' choices, applied by this process): %d host decision mismatches; a leaf's readout -> its hosts' constants in force %.2f/%.2f ms mean/p99 (report written -> in force %.2f/%.2f)\n",
				*s.HostDecisionMismatches, s.AgentHostDelayMs[0], s.AgentHostDelayMs[1], s.AgentHostHopMs[0], s.AgentHostHopMs[1])
		}
		fmt.Fprintln(w)
	}
	return nil
}
