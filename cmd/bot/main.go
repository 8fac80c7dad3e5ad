// Command bot is AutoHeal.
//
//	bot serve                       run the Slack bot (Socket Mode) and the Alertmanager webhook
//	bot investigate [flags] TEXT    investigate once against real backends (env/flags)
//	bot investigate --scenario DIR  investigate a scenario against its simulators
//	bot eval [--json] DIR...        score every scenario under DIR...
//	bot demo --scenario DIR         the whole Slack flow against simulators
//	bot sim --scenario DIR          serve a scenario's simulators and print their URLs
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time (-ldflags "-X main.version=...").
var version = "dev"

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"investigate", "investigate one issue (real backends, or --scenario DIR)", runInvestigate},
		{"eval", "score scenarios: bot eval [--json] DIR...", runEval},
		{"sim", "serve a scenario's simulators: bot sim --scenario DIR", runSim},
		{"serve", "run the Slack bot (Socket Mode) and the worker; configured from the environment", runServe},
		{"demo", "the whole Slack flow of a scenario against simulators: bot demo --scenario DIR", runDemo},
	}
}

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	usage := func() {
		fmt.Fprintln(stderr, "usage: bot <command> [flags]\n\ncommands:")
		for _, c := range commands() {
			fmt.Fprintf(stderr, "  %-12s %s\n", c.name, c.summary)
		}
	}
	if len(args) == 1 && (args[0] == "version" || args[0] == "--version") {
		fmt.Fprintln(stdout, "autoheal", version)
		return 0
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage()
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			fmt.Fprintf(stderr, "bot %s: %v\n", c.name, err)
			return 2
		default:
			fmt.Fprintf(stderr, "bot %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "bot: unknown command %q\n\n", args[0])
	usage()
	return 2
}
