package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"graphcc/control"
	"graphcc/experiment"
	"graphcc/experiment/tune"
	"graphcc/gnn"
	"graphcc/scenario"
	"graphcc/topo"
)

// tuneOpts are the flags of graphcc tune.
type tuneOpts struct {
	scenario     string
	scenarioFile scenarioFileFlag
	seeds        []uint64
	confirm      []uint64
	grid         string
	refine       int
	top          int
	workers      int
	dcqcn        bool
	roles        bool
	reuse        string
	out          string
	shard        string
	jsonOut      string
	hw           hwFlags
	interval     string
}

// tuneLong is tune's help.
const tuneLong = `tune searches fixed configurations for the one of lowest mean FCT slowdown
on one scenario, or on several at once (--scenario a,b or all: one
configuration for all of them, scored by the geometric mean of their mean
slowdowns). A configuration is a switch ECN setting (thresholds of a
25 Gbps port, scaled by each port's rate, as static:KMIN_KB,KMAX_KB,PMAX),
with --roles one per port role (edge:HOST_FACING:SWITCH_FACING), with
--dcqcn the hosts' DCQCN reaction point too (SPEC+dcqcn:TIMER_US,ALPHA_US,
DECREASE_US,AI_MBPS,HAI_MBPS, within what a ConnectX NIC accepts):

  1. the grid (--grid): paper, the 120 fixed settings of the learned
     policies' action set; extended (the default), those and 145 more
     outside it: kmin 0 and 1 KB, kmax 2, 4, 8 and 512 KB (265 settings);
     actions:SET, the 120 of train's --actions table SET (paper,
     extended or rpc), with --refine 0 the best label an imitation
     teacher can give a model of that table;
  2. --refine rounds around the --top configurations of lowest slowdown so
     far: each of kmin, kmax and pmax halved and doubled in the first
     round, the step's factor square-rooted each round after (2, 1.41,
     1.19, …), configurations already run skipped;
  3. with --dcqcn, a round per DCQCN constant (the rate-increase timer 15
     to 600 µs, the alpha period 1 to 55 µs, the decrease period 2 to
     50 µs, AI 2.5 to 80 Mbps, HAI 25 to 400 Mbps) setting it to each of
     its levels on each leader, then --refine ECN rounds again;
  4. with --roles, --refine+1 rounds changing the setting of one role of
     each leader (ports facing a host, or facing a switch), the other kept;
  5. the selection: every configuration scored by its mean slowdown over
     the flows of every validation seed (--seeds) together, as eval does,
     with a 95 % interval from the spread between seeds;
  6. the confirmation on other seeds (--confirm-seeds): the winner, static,
     the best of the paper's 120 and, with --dcqcn or --roles, the best of
     one setting with the hosts' constants unchanged, with the winner's
     ratios to each and their 95 % intervals (3 seeds or more).

The hardware flags (--no-pfc, --window, --dcqcn-*, … and --interval, as
sim and eval take them) describe the fabric tuned: every configuration
runs on it, the result records it (hardware), and --reuse takes only files
of the same hardware. Without --dcqcn the hosts keep the hardware's DCQCN
constants: the search finds the best switch setting for those NICs. With
--dcqcn the DCQCN rounds start from the hardware's constants: a
configuration with them is written without +dcqcn: (its hosts run them
already), every other with all five, which replace the hardware's. Either
way best_policy scores as recorded when sim --policy or eval --policies
runs it with the same hardware flags (a +dcqcn: spec's constants replace
--dcqcn-rp-timer, --dcqcn-alpha-period, --dcqcn-decrease-period,
--dcqcn-ai-mbps and --dcqcn-hai-mbps; the other flags still count).

Neither --seeds nor --confirm-seeds may hold the evaluation seeds
1001-1010. Every round runs its configurations × seeds in parallel
(--workers). Progress goes to stderr, a line per round; the summary to
stdout; the result, as JSON (docs/formats.md), to --out. Its best_policy
is a spec that sim --policy, eval --policies and testbed run --policies
take, and tuned:FILE runs it.

--shard I/N runs only shard I of N of the grid round (every Nth distinct
configuration of the grid, on every scenario and validation seed) and
writes its part to --json; graphcc merge of every shard's part runs the
rounds after the grid and the confirmation, which depend on the grid's
scores, and writes the result tune writes (docs/scale-out.md).`

func newTuneCmd(lookup lookupFunc) *cobra.Command {
	o := tuneOpts{
		scenarioFile: scenarioFileFlag{lookup: lookup},
		scenario:     scenario.Default().Name,
		seeds:        experiment.DefaultTuneSeeds(),
		confirm:      experiment.DefaultConfirmSeeds(),
		grid:         "extended",
		refine:       experiment.DefaultTuneRefine,
		top:          experiment.DefaultTuneTop,
		out:          "tune.json",
		hw:           defaultHW(),
		interval:     topo.FormatDuration(control.DefaultInterval),
	}
	cmd := &cobra.Command{
		Use: "tune [flags]",
		Example: `  graphcc tune                                        # fb60-incast: extended grid, 2 refinement rounds
  graphcc tune --grid paper --refine 0 --workers 2 --out fb60.json
  graphcc tune --scenario websearch60 --seeds 2001-2005 --top 5 --out websearch60.json
  graphcc tune --grid paper --dcqcn --roles --out fb60-joint.json  # hosts' DCQCN and port roles too
  graphcc tune --grid paper --dcqcn-rp-timer 55us --dcqcn-hai-mbps 25 --out fb60-55us.json  # the best switch setting for these NICs
  graphcc tune --scenario all --grid paper --refine 1 --out global.json  # one setting for the whole suite
  graphcc tune --scenario all --grid paper --reuse models/tuned --out global.json  # scores the per-scenario searches made already
  graphcc tune --grid paper --shard 0/4 --json part-0.json          # a quarter of the grid; graphcc merge part-*.json --json fb60.json`,
		Short: "Find the best fixed ECN setting (and DCQCN constants) of a scenario or a suite: grid, refinement, confirmation",
		Long:  tuneLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&o.scenario, "scenario", o.scenario, "scenario to tune (see graphcc eval --list-scenarios), or several comma-separated or all for one configuration for all of them; with --scenario-file, the file's only scenario by default")
	o.scenarioFile.add(fs, false)
	fs.Var(newSeedsFlag(&o.seeds), "seeds", "validation seeds the selection scores on (not 1001-1010)")
	fs.Var(newSeedsFlag(&o.confirm), "confirm-seeds", "seeds of the confirmation, apart from --seeds (not 1001-1010)")
	fs.StringVar(&o.grid, "grid", o.grid, "coarse grid: paper (the 120 of the action set), extended (265, with kmin 0 and 1 KB, kmax 2 to 8 and 512 KB), or actions:SET, the 120 settings of train's --actions table SET (paper, extended or rpc): labels such a model plays exactly")
	fs.IntVar(&o.refine, "refine", o.refine, "refinement rounds around the leaders")
	fs.IntVar(&o.top, "top", o.top, "leaders refined each round")
	fs.BoolVar(&o.dcqcn, "dcqcn", false, "tune the hosts' DCQCN reaction point (rate-increase timer, alpha and decrease periods, AI, HAI) jointly, from the hardware's constants (--dcqcn-*)")
	fs.BoolVar(&o.roles, "roles", false, "tune the switch ports facing a host and those facing a switch apart (an edge: policy)")
	fs.IntVar(&o.workers, "workers", 0, "simulations run at once (0: one per CPU)")
	fs.StringVar(&o.reuse, "reuse", "", "directory of one-scenario tune results (DIR/<scenario>.json, e.g. models/tuned): a configuration such a file ran on the same seeds and hardware is not simulated again on its scenario (a search of several scenarios, or of one with --dcqcn or --roles from where its switch-only search ended); the winner is run again and must score as its files say")
	fs.StringVar(&o.out, "out", o.out, "JSON result file")
	fs.StringVar(&o.shard, "shard", "", "run only shard I of N of the grid round (I/N, I from 0; or env/N, I from $SLURM_ARRAY_TASK_ID or else $JOB_COMPLETION_INDEX) and write its part to --json, for graphcc merge (docs/scale-out.md)")
	fs.StringVar(&o.jsonOut, "json", "", "with --shard, the file of the shard's part")
	o.hw.add(fs, omitECN)
	fs.StringVar(&o.interval, "interval", o.interval, "control interval")
	return cmd
}

// config builds the search of the flags.
func (o *tuneOpts) config(fs *pflag.FlagSet) (experiment.TuneConfig, error) {
	var c experiment.TuneConfig
	set, err := o.scenarioFile.load()
	if err != nil {
		return c, err
	}
	switch {
	case o.scenarioFile.path != "" && !fs.Changed("scenario"):
		sc, err := set.pick("") // the file's only scenario
		if err != nil {
			return c, err
		}
		c.Scenarios = []scenario.Scenario{sc}
	case strings.TrimSpace(o.scenario) == "all":
		c.Scenarios, err = set.resolve("--scenario", o.scenario, append(scenario.Names(), set.names()...))
	default:
		c.Scenarios, err = set.resolve("--scenario", o.scenario, strings.Split(o.scenario, ","))
	}
	if err != nil {
		return c, err
	}
	if c.Grid, err = tuneGrid(o.grid); err != nil {
		return c, err
	}
	switch {
	case o.refine < 0:
		return c, fmt.Errorf("--refine %d: must not be negative", o.refine)
	case o.top < 1:
		return c, fmt.Errorf("--top %d: must be at least 1", o.top)
	case o.workers < 0:
		return c, fmt.Errorf("--workers %d: must not be negative (0 = one per CPU)", o.workers)
	case len(o.seeds) == 0:
		return c, fmt.Errorf("--seeds: no seed given")
	case len(o.confirm) == 0:
		return c, fmt.Errorf("--confirm-seeds: no seed given")
	}
	if err := experiment.CheckTrainingSeeds(o.seeds); err != nil {
		return c, fmt.Errorf("--seeds: %w", err)
	}
	if err := experiment.CheckTrainingSeeds(o.confirm); err != nil {
		return c, fmt.Errorf("--confirm-seeds: %w", err)
	}
	if err := o.hardware(fs, &c); err != nil {
		return c, err
	}
	c.Refine, c.Top, c.Workers = o.refine, o.top, o.workers
	c.DCQCN, c.Roles = o.dcqcn, o.roles
	c.Seeds, c.ConfirmSeeds = o.seeds, o.confirm
	if o.reuse != "" {
		var names []string
		for _, sc := range c.Scenarios {
			names = append(names, sc.Name)
		}
		if c.Prior, err = tune.LoadPrior(o.reuse, names); err != nil {
			return c, fmt.Errorf("--reuse: %w", err)
		}
	}
	return c, nil
}

// hardware sets c's simulated hardware and control interval from the
// flags, refusing the ECN flags (tune searches the thresholds), a fabric
// of c.Scenarios that cannot run the hardware, and with --dcqcn hosts'
// constants that no +dcqcn: spec can start from.
func (o *tuneOpts) hardware(fs *pflag.FlagSet, c *experiment.TuneConfig) error {
	var err error
	if c.Params, err = o.hw.params(); err != nil {
		return err
	}
	if c.Interval, err = parseIntervalFlag(o.interval); err != nil {
		return err
	}
	for _, sc := range c.Scenarios {
		f, err := sc.BaseFabric()
		if err != nil {
			return fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		if err := o.hw.checkFabric(c.Params, f); err != nil {
			return fmt.Errorf("%w (scenario %s)", err, sc.Name)
		}
	}
	if o.dcqcn {
		if err := tune.HardwareDCQCN(c.Params).Params().Validate(); err != nil {
			return fmt.Errorf("--dcqcn starts from the hosts' constants of --%s, which must be a NIC's: %w",
				strings.Join(hostSpecFlagNames(), ", --"), err)
		}
	}
	return nil
}

func (o *tuneOpts) run(ctx context.Context, cmd *cobra.Command) error {
	c, err := o.config(cmd.Flags())
	if err != nil {
		return err
	}
	if o.shard != "" || cmd.Flags().Changed("shard") {
		return o.runShard(ctx, cmd, c)
	}
	if o.jsonOut != "" {
		return fmt.Errorf("--json %s: only a shard (--shard) writes a part; the result goes to --out", o.jsonOut)
	}
	if err := checkOutputs("out", o.out); err != nil {
		return err
	}
	bar := newMeter(cmd.ErrOrStderr(), "tune", "rounds", c.Rounds())
	done := 0
	c.Progress = func(r tune.Round) {
		done++
		bar.step(done, fmt.Sprintf("%s, %d settings run; best %s, mean slowdown %.3f", r.Name, r.Settings, r.Best, r.Score))
	}
	start := time.Now()
	res, err := tune.Search(ctx, c)
	bar.done()
	if err != nil {
		return err
	}
	var wrote outputs
	if err := wrote.write("out", o.out, res.WriteJSON); err != nil {
		return err
	}
	if err := res.WriteSummary(cmd.OutOrStdout(), time.Since(start)); err != nil {
		return err
	}
	wrote.report(cmd.ErrOrStderr())
	return nil
}

// tuneGrid returns the coarse grid --grid names: paper, extended, or
// actions:SET, the 120 settings of train's --actions table SET.
func tuneGrid(name string) ([]tune.Setting, error) {
	switch name {
	case "paper":
		return tune.PaperGrid(), nil
	case "extended":
		return tune.ExtendedGrid(), nil
	}
	if set, ok := strings.CutPrefix(name, "actions:"); ok {
		s, err := gnn.ParseActionSet(set)
		if err != nil {
			return nil, fmt.Errorf("--grid %s: %w", name, err)
		}
		return tune.ActionGrid(s), nil
	}
	return nil, fmt.Errorf("--grid %s: want paper, extended or actions:SET (SET paper, extended or rpc)", name)
}

// runShard runs shard --shard of the grid of the search c and writes
// its part to --json.
func (o *tuneOpts) runShard(ctx context.Context, cmd *cobra.Command, c tune.Config) error {
	if o.reuse != "" {
		return fmt.Errorf("--reuse with --shard: a shard runs its part of the grid whole (reuse the priors in one process instead)")
	}
	shard, build, err := shardFlags(cmd, o.shard, o.jsonOut, "--json writes the result")
	if err != nil {
		return err
	}
	total := len(shard.Units(tune.GridSize(c.Grid))) * len(c.Scenarios) * len(c.Seeds)
	bar := newMeter(cmd.ErrOrStderr(), "tune grid "+shard.String(), "runs", total)
	c.RunProgress = func(done, _ int) { bar.step(done, "") }
	part, err := tune.GridPart(ctx, c, shard)
	bar.done()
	if err != nil {
		return err
	}
	part.Build = build
	var wrote outputs
	if err := wrote.write("json", o.jsonOut, func(w io.Writer) error { return experiment.WritePart(w, part) }); err != nil {
		return err
	}
	wrote.report(cmd.ErrOrStderr())
	return nil
}
