package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/scenario"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the summary object as the last line")
	lf := addLLMFlags(fs, false)
	level := addLogLevelFlag(fs, "warn")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := setCLILogger(stderr, *level); err != nil {
		return err
	}
	planner, done, err := lf.planner(stderr)
	if err != nil {
		return err
	}
	defer done()
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: give one or more directories holding scenarios", errUsage)
	}
	dirs, err := scenario.Discover(fs.Args()...)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return fmt.Errorf("no scenario.yaml found under %v", fs.Args())
	}
	cases, sum, err := harness.Evaluate(ctx, dirs, harness.RunOptions{Engine: investigate.Options{Logger: slog.Default()},
		Investigator: investigator(planner), WrapCapabilities: wrapFor(planner)})
	if err != nil {
		return err // a scenario that cannot be loaded: the message names the file
	}
	harness.PrintTable(stdout, cases, sum)
	if *asJSON {
		return harness.PrintJSON(stdout, sum)
	}
	return nil
}
