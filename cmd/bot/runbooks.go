package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/runbooks"
)

// runRunbooks is `bot runbooks check DIR`: it validates a runbook library
// as serve would load it, printing each runbook it accepts and every
// problem of the others (file and field), and fails when there is one.
func runRunbooks(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		return fmt.Errorf("%w: bot runbooks check DIR", errUsage)
	}
	fs := flag.NewFlagSet("runbooks check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	dir := strings.TrimSpace(os.Getenv(runbooks.DirEnv))
	switch fs.NArg() {
	case 0:
		if dir == "" {
			return fmt.Errorf("%w: bot runbooks check DIR (or set %s)", errUsage, runbooks.DirEnv)
		}
	case 1:
		dir = fs.Arg(0)
	default:
		return fmt.Errorf("%w: bot runbooks check DIR: one directory", errUsage)
	}
	lib, errs := runbooks.Check(dir)
	for _, rb := range lib.Runbooks {
		fmt.Fprintf(stdout, "ok    %s: %s\n", rb.File, describeRunbook(rb))
	}
	for _, err := range errs {
		fmt.Fprintf(stdout, "error %s\n", err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: %d problem(s); %d runbook(s) valid", dir, len(errs), len(lib.Runbooks))
	}
	if len(lib.Runbooks) == 0 {
		fmt.Fprintf(stdout, "%s: no runbooks (*.md files)\n", dir)
		return nil
	}
	fmt.Fprintf(stdout, "%s: %d runbook(s) valid\n", dir, len(lib.Runbooks))
	return nil
}

// describeRunbook says in one line when a runbook applies and what it runs.
func describeRunbook(rb *runbooks.Runbook) string {
	var when []string
	m := rb.Match
	if len(m.Alerts) > 0 {
		when = append(when, "alerts "+strings.Join(m.Alerts, ", "))
	}
	if len(m.Labels) > 0 {
		var ls []string
		for k, v := range m.Labels {
			ls = append(ls, k+"="+v)
		}
		sort.Strings(ls)
		when = append(when, "labels "+strings.Join(ls, ", "))
	}
	if len(m.Services) > 0 {
		when = append(when, "services "+strings.Join(m.Services, ", "))
	}
	if len(m.Buckets) > 0 {
		when = append(when, "buckets "+strings.Join(m.Buckets, ", "))
	}
	s := "applies on " + strings.Join(when, "; ")
	if len(rb.Tools) > 0 {
		var ts []string
		for _, h := range rb.Tools {
			ts = append(ts, h.Name+" ("+h.Kind+")")
		}
		s += "; runs " + strings.Join(ts, ", ")
	}
	return s
}

// runbookLibrary loads the library of dir (the flag) or of
// AUTOHEAL_RUNBOOKS_DIR; nil when neither is set.
func runbookLibrary(dir string) (investigate.RunbookLibrary, error) {
	if dir == "" {
		dir = strings.TrimSpace(os.Getenv(runbooks.DirEnv))
	}
	if dir == "" {
		return nil, nil
	}
	lib, err := runbooks.Load(dir)
	if err != nil {
		return nil, err
	}
	return lib, nil
}
