package loki

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

// maxPatternServices bounds how many services one patterns call queries
// (the endpoint aggregates over every stream a selector matches, so each
// service is asked on its own to keep its patterns apart).
const maxPatternServices = 12

// patternSeries is one item of GET /loki/api/v1/patterns (Loki 3):
// {"pattern": "<_> level=error msg=<_>", "level": "error", "samples": [[unix seconds, count], ...]}.
// level is absent before Loki 3.3.
type patternSeries struct {
	Pattern string     `json:"pattern"`
	Level   string     `json:"level"`
	Samples [][2]int64 `json:"samples"`
}

// patterns asks Loki's pattern detection for the services' log patterns.
// Where the server has no patterns endpoint (404: Loki before 3.0, or the
// pattern ingester disabled, its default), it falls back quietly to
// grouping the window's error lines here, as logs_search_errors does, and
// does not ask again.
func (c *Capability) patterns(ctx context.Context, services []string, namespace string, start, end time.Time, limit int) (*investigate.ToolResult, error) {
	c.mu.Lock()
	supported := !c.noPatterns
	c.mu.Unlock()
	if supported {
		if len(services) == 0 {
			services = c.serviceValues(ctx, start, end)
		}
		if len(services) > maxPatternServices {
			services = services[:maxPatternServices]
		}
		if len(services) == 0 {
			services = []string{""} // one selector over every stream with the label
		}
		var all []servicePatterns
		for _, svc := range services {
			var sel string
			if svc == "" {
				sel = selector(c.cfg.ServiceLabel, nil, namespace)
			} else {
				sel = selector(c.cfg.ServiceLabel, []string{svc}, namespace)
			}
			ps, err := c.queryPatterns(ctx, sel, start, end)
			if investigate.KindOf(err) == investigate.ErrKindNotFound {
				c.mu.Lock()
				c.noPatterns = true
				c.mu.Unlock()
				supported = false
				break
			}
			if err != nil {
				return nil, err
			}
			all = append(all, servicePatterns{service: svc, series: ps})
		}
		if supported {
			return patternResult(all), nil
		}
	}
	q := buildQuery(c.cfg.ServiceLabel, services, namespace, "")
	if len(services) == 1 && services[0] == "" {
		q = buildQuery(c.cfg.ServiceLabel, nil, namespace, "")
	}
	streams, err := c.queryRange(ctx, q, start, end, limit)
	if err != nil {
		return nil, err
	}
	r := c.result(q, streams, limit)
	r.Summary = "Loki has no pattern detection (before 3.0, or pattern_ingester disabled): " + r.Summary + ", grouped here"
	return r, nil
}

type servicePatterns struct {
	service string
	series  []patternSeries
}

// serviceValues lists the values of the service label in the window.
func (c *Capability) serviceValues(ctx context.Context, start, end time.Time) []string {
	q := url.Values{}
	q.Set("start", strconv.FormatInt(start.UnixNano(), 10))
	q.Set("end", strconv.FormatInt(end.UnixNano(), 10))
	var body struct {
		Data []string `json:"data"`
	}
	if err := c.client.GetJSON(ctx, "/loki/api/v1/label/"+url.PathEscape(c.cfg.ServiceLabel)+"/values", q, &body); err != nil {
		return nil
	}
	sort.Strings(body.Data)
	return body.Data
}

func (c *Capability) queryPatterns(ctx context.Context, sel string, start, end time.Time) ([]patternSeries, error) {
	q := url.Values{}
	q.Set("query", sel)
	q.Set("start", strconv.FormatInt(start.UnixNano(), 10))
	q.Set("end", strconv.FormatInt(end.UnixNano(), 10))
	var body struct {
		Status string          `json:"status"`
		Data   []patternSeries `json:"data"`
	}
	if err := c.client.GetJSON(ctx, "/loki/api/v1/patterns", q, &body); err != nil {
		return nil, err
	}
	if body.Status != "success" {
		return nil, investigate.NewToolError(investigate.ErrKindBadResponse, fmt.Sprintf("loki status %q", body.Status), nil)
	}
	return body.Data, nil
}

// patternResult turns patterns into findings: those at error level or
// above, and those whose text the fingerprint catalogue knows, with their
// counts and first and last sample.
func patternResult(all []servicePatterns) *investigate.ToolResult {
	type view struct {
		Service, Pattern, Level string
		Count                   int64
		First, Last             time.Time
	}
	var (
		findings []investigate.Finding
		views    []view
		total    int
	)
	for _, sp := range all {
		for _, p := range sp.series {
			total++
			var count int64
			var first, last time.Time
			for _, s := range p.Samples {
				count += s[1]
				t := time.Unix(s[0], 0).UTC()
				if first.IsZero() || t.Before(first) {
					first = t
				}
				if t.After(last) {
					last = t
				}
			}
			level := investigate.NormalizeLevel(p.Level)
			if level == "" {
				_, level = investigate.LogText(p.Pattern)
			}
			views = append(views, view{Service: sp.service, Pattern: investigate.Quote(p.Pattern, 300), Level: p.Level, Count: count, First: first, Last: last})
			f, known := investigate.TextFinding(investigate.KindLogPattern, investigate.FamilyLogs, sp.service, p.Pattern, first)
			if !known {
				if level != "error" {
					continue
				}
				f = investigate.Finding{Kind: investigate.KindLogPattern, Family: investigate.FamilyLogs, Service: sp.service,
					ErrorType: investigate.ErrUnknown, Quote: investigate.Quote(p.Pattern, 200)}
			}
			f.Time, f.LastTime, f.Count = first, last, int(count)
			if f.Attrs == nil {
				f.Attrs = map[string]string{}
			}
			f.Attrs["pattern"] = investigate.Quote(p.Pattern, 400)
			f.Attrs["level"] = level
			f.Attrs["source"] = "loki patterns"
			findings = append(findings, f)
		}
	}
	sort.SliceStable(findings, func(i, j int) bool { return findings[i].Count > findings[j].Count })
	sort.SliceStable(views, func(i, j int) bool { return views[i].Count > views[j].Count })
	if len(views) > 25 {
		views = views[:25]
	}
	var services []string
	for _, sp := range all {
		if sp.service != "" {
			services = append(services, sp.service)
		}
	}
	sum := fmt.Sprintf("%d log patterns, %d at error level or known failures", total, len(findings))
	if len(services) > 0 {
		sum += " in " + strings.Join(services, ", ")
	}
	if len(findings) > 0 {
		top := findings[0]
		sum += fmt.Sprintf("; top: %s %s ×%d", top.Service, firstNonEmpty(top.Exception, top.Signature, "error"), top.Count)
	}
	return &investigate.ToolResult{Summary: sum, Findings: findings, Data: map[string]any{"patterns": views}}
}
