package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/autoheal/autoheal/sessions"
)

// runHistory is `bot history`: the incident memory, newest first, as a
// table or JSON lines, filtered by service, bucket or words.
func runHistory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	service := fs.String("service", "", "only incidents of this service")
	bucket := fs.String("bucket", "", "only this bucket (code_bug, infrastructure, bad_data, flake)")
	search := fs.String("search", "", "only incidents whose error, summary, location or issue key contains these words")
	limit := fs.Int("limit", 20, "incidents to show (1-1000)")
	asJSON := fs.Bool("json", false, "one JSON object per incident")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: bot history [--service S] [--bucket B] [--search WORDS] [--limit N] [--json]\n\nLists the incident memory (REDIS_URL, AUTOHEAL_REDIS_PREFIX as for serve), newest first.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	if *limit < 1 || *limit > 1000 {
		return fmt.Errorf("%w: --limit %d: want 1-1000", errUsage, *limit)
	}
	store, closeStore, err := storeFromEnv(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	// Read more than shown when filtering, within the memory's own bounds.
	read := *limit
	if *bucket != "" || *search != "" {
		read = 1000
	}
	recs, err := store.RecentIncidents(ctx, sessions.MemoryIndex{Service: *service}, read)
	if err != nil {
		return err
	}
	words := strings.Fields(strings.ToLower(*search))
	var shown []sessions.MemoryRecord
	for _, r := range recs {
		if len(shown) == *limit {
			break
		}
		if (*bucket == "" || r.Bucket == *bucket) && matchesAll(r, words) {
			shown = append(shown, r)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range shown {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	if len(shown) == 0 {
		_, err := fmt.Fprintln(stdout, "no incidents remembered that match")
		return err
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WHEN\tSERVICE\tBUCKET / ERROR\tLOCATION\tBAND\tOUTCOME\tTHREAD")
	for _, r := range shown {
		loc := "-"
		if r.File != "" {
			loc = fmt.Sprintf("%s:%d", r.File, r.Line)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s / %s\t%s\t%s\t%s\t%s/%s\n", r.At.UTC().Format(time.DateTime), r.Service, r.Bucket, r.ErrorType,
			loc, r.Band, outcomeOf(r), r.Channel, r.ThreadTS)
	}
	return tw.Flush()
}

func matchesAll(r sessions.MemoryRecord, words []string) bool {
	hay := strings.ToLower(strings.Join([]string{r.Template, r.Summary, r.File, r.IssueKey, r.Service, r.ErrorType}, " "))
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

func outcomeOf(r sessions.MemoryRecord) string {
	switch {
	case r.PRURL != "" && r.PRState != "":
		return fmt.Sprintf("PR #%d %s", r.PRNumber, r.PRState)
	case r.Decision == "rejected":
		return "rejected"
	case r.Decision != "":
		return r.Decision
	}
	return "-"
}

// storeFromEnv opens the Redis store serve uses (REDIS_URL,
// AUTOHEAL_REDIS_PREFIX), for the commands that read its records.
func storeFromEnv(ctx context.Context) (*sessions.Store, func(), error) {
	return openStore(ctx, os.Getenv)
}

// openStore is storeFromEnv with the environment read through getenv.
func openStore(ctx context.Context, getenv func(string) string) (*sessions.Store, func(), error) {
	url, prefix := redisEnv(getenv)
	rdb, err := sessions.Connect(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	store, err := sessions.New(rdb, sessions.Options{Prefix: prefix})
	if err != nil {
		_ = rdb.Close()
		return nil, nil, err
	}
	return store, func() { _ = rdb.Close() }, nil
}
