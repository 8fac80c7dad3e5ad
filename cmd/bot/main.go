// Command bot is AutoHeal.
//
//	bot serve                       run the Slack bot (Socket Mode) and the Alertmanager webhook
//	bot investigate [flags] TEXT    investigate once against real backends (env/flags)
//	bot investigate --scenario DIR  investigate a scenario against its simulators
//	bot eval [--json] DIR...        score every scenario under DIR...
//	bot demo --scenario DIR         the whole Slack flow against simulators
//	bot sim --scenario DIR          serve a scenario's simulators and print their URLs
//	bot history [flags]             list and search the incident memory
//	bot capture KEY | --since T …   write a live incident as a scenario directory
//	bot mcp [--http ADDR]           AutoHeal as an MCP server (read-only tools)
//	bot audit [flags]               print the audit log of approvals (Redis of serve)
//	bot runbooks check DIR          validate a runbook library (exit 1 with every problem)
//	bot version                     print the version
//
// Logs go to stderr. `serve` logs JSON at info by default; the other
// commands log text at warn, so that their output stays readable. Every
// command honours AUTOHEAL_LOG_LEVEL (debug, info, warn, error), and serve,
// investigate, eval and sim take --log-level, which wins over it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
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
		{"history", "list and search the incident memory: bot history [--service S] [--search WORDS]", runHistory},
		{"capture", "write a live incident as a scenario: bot capture KEY | --since T --service S", runCapture},
		{"mcp", "AutoHeal as an MCP server (stdio, or --http ADDR with AUTOHEAL_MCP_TOKEN)", runMCP},
		{"audit", "print the audit log of approvals and rejections: bot audit [--key K] [--channel C] [--user U] [--action A] [--since T] [--json]", runAudit},
		{"runbooks", "validate a runbook library: bot runbooks check DIR", runRunbooks},
		{"version", "print the version", runVersion},
	}
}

func runVersion(_ context.Context, args []string, stdout, _ io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, args)
	}
	_, err := fmt.Fprintln(stdout, "autoheal", version)
	return err
}

// logLevelEnv sets the log level of every command (--log-level wins).
const logLevelEnv = "AUTOHEAL_LOG_LEVEL"

// parseLogLevel reads debug, info, warn (warning) or error.
func parseLogLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return slog.LevelInfo, errors.New("want debug, info, warn or error")
}

// addLogLevelFlag adds --log-level; def names the command's default in
// the help ("" in the result: not given).
func addLogLevelFlag(fs *flag.FlagSet, def string) *string {
	return fs.String("log-level", "", "log level: debug, info, warn or error (default "+logLevelEnv+", else "+def+")")
}

// cliLogLevel is the level of a command other than serve: --log-level,
// else AUTOHEAL_LOG_LEVEL, else warn.
func cliLogLevel(flagValue string) (slog.Level, error) {
	if flagValue != "" {
		l, err := parseLogLevel(flagValue)
		if err != nil {
			return l, fmt.Errorf("%w: --log-level: %v", errUsage, err)
		}
		return l, nil
	}
	if v := strings.TrimSpace(os.Getenv(logLevelEnv)); v != "" {
		l, err := parseLogLevel(v)
		if err != nil {
			return l, fmt.Errorf("%s: %w", logLevelEnv, err)
		}
		return l, nil
	}
	return slog.LevelWarn, nil
}

// setCLILogger makes the default logger (libraries, MCP clients, the
// engine) write text to stderr at the command's level.
func setCLILogger(stderr io.Writer, flagValue string) error {
	level, err := cliLogLevel(flagValue)
	if err != nil {
		return err
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})))
	return nil
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
	if len(args) == 1 && args[0] == "--version" {
		args = []string{"version"}
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
		if c.name != "serve" && c.name != "version" {
			// Until the command reads its own --log-level (demo has -v).
			if err := setCLILogger(stderr, ""); err != nil {
				fmt.Fprintf(stderr, "bot %s: %v\n", c.name, err)
				return 1
			}
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
