package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/autoheal/autoheal/sessions"
)

// redisEnv is where serve, and the commands that read its records, find
// Redis: REDIS_URL and AUTOHEAL_REDIS_PREFIX, with their defaults.
func redisEnv(get func(string) string) (url, prefix string) {
	url, prefix = strings.TrimSpace(get("REDIS_URL")), strings.TrimSpace(get("AUTOHEAL_REDIS_PREFIX"))
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	if prefix == "" {
		prefix = sessions.DefaultPrefix
	}
	return url, prefix
}

// runAudit is `bot audit`: the audit log of approvals, read from the Redis
// that serve uses.
func runAudit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return audit(ctx, args, os.Getenv, time.Now, stdout, stderr)
}

func audit(ctx context.Context, args []string, getenv func(string) string, now func() time.Time, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: bot audit [--key K] [--channel C] [--user U] [--action A[,B]] [--since T] [--until T] [--limit N] [--json]\n\n"+
			"Prints the audit log of approvals (approved, updated, rejected, refused, failed, issue_created) and of\n"+
			"bot mcp's tool calls (mcp_call), oldest first,\n"+
			"from the Redis of REDIS_URL and AUTOHEAL_REDIS_PREFIX (as serve). T is RFC 3339 (2026-12-01T17:00:00Z),\n"+
			"a date (2026-12-01, UTC) or a duration back from now (24h, 7d).")
		fs.PrintDefaults()
	}
	var (
		q                     sessions.AuditQuery
		actions, since, until string
		asJSON                bool
	)
	fs.StringVar(&q.IssueKey, "key", "", "only this issue key (an alert's key, or slack-<channel>-<thread ts> for a mention thread)")
	fs.StringVar(&q.Channel, "channel", "", "only this Slack channel id")
	fs.StringVar(&q.User, "user", "", "only this Slack user id")
	fs.StringVar(&actions, "action", "", "only these actions, comma-separated")
	fs.StringVar(&since, "since", "", "only records at or after T")
	fs.StringVar(&until, "until", "", "only records before T")
	fs.IntVar(&q.Limit, "limit", 100, "at most the latest N records (0: all)")
	fs.BoolVar(&asJSON, "json", false, "one JSON object per record")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	if q.Limit < 0 {
		return fmt.Errorf("%w: --limit must be 0 or more", errUsage)
	}
	for _, a := range strings.Split(actions, ",") {
		if strings.TrimSpace(a) == "" {
			continue
		}
		act, err := sessions.ParseAuditAction(a)
		if err != nil {
			return fmt.Errorf("%w: --action: %s", errUsage, strings.TrimPrefix(err.Error(), sessions.ErrInvalidArgument.Error()+": "))
		}
		q.Actions = append(q.Actions, act)
	}
	var err error
	if q.Since, err = auditTime(since, now()); err != nil {
		return fmt.Errorf("%w: --since: %v", errUsage, err)
	}
	if q.Until, err = auditTime(until, now()); err != nil {
		return fmt.Errorf("%w: --until: %v", errUsage, err)
	}
	store, closeStore, err := openStore(ctx, getenv)
	if err != nil {
		return err
	}
	defer closeStore()
	recs, err := store.ReadAudit(ctx, q)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range recs {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	return printAudit(stdout, recs)
}

// auditTime reads a time flag: RFC 3339, a date, or a duration back from now.
func auditTime(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(days, "%d", &n); err == nil && n > 0 && fmt.Sprint(n) == days {
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, errors.New("want RFC 3339 (2026-12-01T17:00:00Z), a date (2026-12-01) or a duration (24h, 7d)")
}

func printAudit(w io.Writer, recs []sessions.AuditRecord) error {
	if len(recs) == 0 {
		_, err := fmt.Fprintln(w, "No audit records match.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME (UTC)\tACTION\tUSER\tWHERE\tISSUE KEY\tPULL REQUEST\tDETAIL")
	for _, r := range recs {
		where := r.Channel
		if r.ThreadTS != "" {
			where += "/" + r.ThreadTS
		}
		pr := ""
		if r.PRNumber > 0 {
			pr = fmt.Sprintf("#%d %s", r.PRNumber, r.PRURL)
		}
		detail := r.Detail
		if r.Proposal != "" {
			detail = strings.TrimSpace("proposal " + r.Proposal + " " + detail)
		}
		if r.Legacy {
			detail = strings.TrimSpace(detail + " (legacy record)")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.At.UTC().Format("2006-01-02 15:04:05"), r.Action,
			dash(r.User), dash(where), r.IssueKey, dash(pr), oneLineText(detail))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLineText keeps a record on one line of the table.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
