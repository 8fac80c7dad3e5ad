package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim"
)

func runSim(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scen := fs.String("scenario", "", "scenario directory to serve")
	listen := fs.String("listen", "127.0.0.1:0", "address pattern for each simulator")
	transcript := fs.String("transcript", "", "write every call as JSON lines to this file")
	level := addLogLevelFlag(fs, "warn")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := setCLILogger(stderr, *level); err != nil {
		return err
	}
	if *scen == "" {
		return fmt.Errorf("%w: --scenario DIR is required", errUsage)
	}
	s, err := scenario.Load(*scen)
	if err != nil {
		return err
	}
	opts := harness.Options{Listen: *listen}
	if *transcript != "" {
		f, err := os.Create(*transcript)
		if err != nil {
			return err
		}
		defer f.Close()
		opts.Transcript = simTranscript(f)
	}
	b, err := harness.Start(s, opts)
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintf(stdout, "serving scenario %s (clock %s)\n%s\n", s.Name, s.Now.Format("2006-01-02T15:04:05Z07:00"), b.Describe())
	if repo := s.Config["repo"]; repo != "" && b.URLs["github"] != "" {
		fmt.Fprintf(stdout, "repo        %s (GITHUB_API_URL=%s/)\n", repo, b.URLs["github"])
	}
	fmt.Fprintln(stdout, "press Ctrl-C to stop")
	<-ctx.Done()
	return nil
}

func simTranscript(w io.Writer) *sim.Transcript { return sim.NewTranscript(w) }
