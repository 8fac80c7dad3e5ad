package loki

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

// ToolTemplates mines every log line of the window, all levels.
const ToolTemplates = "logs_templates"

// Bounds of the all-levels fetch: a service's lines are read in time
// slices, each capped, so one loud service cannot starve the others and a
// burst late in the window cannot hide the baseline before it.
const (
	templateSlices       = 6
	templateLinesPerCall = 500
	templateMaxServices  = 40
	templateBuckets      = 60
	templateParallel     = 8
)

func templatesSpec(win map[string]any) investigate.ToolSpec {
	props := map[string]any{
		"services":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "services to read; empty = all"},
		"namespace": map[string]any{"type": "string"},
	}
	for k, v := range win {
		if k != "limit" {
			props[k] = v
		}
	}
	return investigate.ToolSpec{Name: ToolTemplates, Family: investigate.FamilyLogs,
		Description: "Read every log line of the window (all levels, sampled per service and time slice) and mine them into templates (Drain) with counts per time bucket: shows what is new or surging, even at info or warning level.",
		Parameters:  investigate.Schema(props, "start", "end")}
}

// volume is a service's exact line count per slice (from a metric query).
type volume map[string][]float64

// templates fetches the lines of every service in time slices and returns
// the templates they form.
func (c *Capability) templates(ctx context.Context, services []string, namespace string, start, end time.Time) (*investigate.ToolResult, error) {
	label := c.cfg.ServiceLabel
	slice := (end.Sub(start) / templateSlices).Round(time.Second)
	if slice < time.Second {
		slice = time.Second
	}
	vol, err := c.volumes(ctx, label, services, namespace, start, end, slice)
	if err != nil {
		return nil, err
	}
	if len(vol) == 0 && len(services) == 0 {
		// The configured label may not exist here (as for error search).
		if l, _ := c.discoverLabel(ctx, start, end); l != "" && l != label {
			label = l
			if vol, err = c.volumes(ctx, label, nil, namespace, start, end, slice); err != nil {
				return nil, err
			}
		}
	}
	names := make([]string, 0, len(vol))
	for s := range vol {
		names = append(names, s)
	}
	// Every named service first, then the rest by volume (ties by name).
	want := map[string]bool{}
	for _, s := range services {
		want[s] = true
	}
	total := func(s string) float64 {
		t := 0.0
		for _, v := range vol[s] {
			t += v
		}
		return t
	}
	sort.Slice(names, func(i, j int) bool {
		if want[names[i]] != want[names[j]] {
			return want[names[i]]
		}
		if ti, tj := total(names[i]), total(names[j]); ti != tj {
			return ti > tj
		}
		return names[i] < names[j]
	})
	skipped := 0
	if len(names) > templateMaxServices {
		skipped = len(names) - templateMaxServices
		names = names[:templateMaxServices]
	}
	type job struct {
		svc   string
		slice int // -1: the whole window in one call
	}
	var jobs []job
	for _, s := range names {
		if total(s) <= templateLinesPerCall {
			jobs = append(jobs, job{s, -1})
			continue
		}
		for i, n := range vol[s] {
			if n > 0 {
				jobs = append(jobs, job{s, i})
			}
		}
	}
	var (
		mu      sync.Mutex
		lines   []investigate.LogLine
		errs    []error
		sampled int
	)
	run := func(j job) {
		from, to := start, end
		if j.slice >= 0 {
			from = start.Add(time.Duration(j.slice) * slice)
			to = from.Add(slice)
			if j.slice == templateSlices-1 {
				to = end
			}
		}
		q := selector(label, []string{j.svc}, namespace)
		streams, err := c.queryRange(ctx, q, from, to, templateLinesPerCall)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			errs = append(errs, err)
			return
		}
		n := 0
		for _, st := range streams {
			n += len(st.Values)
		}
		// A capped slice stands for all its lines.
		weight := 1.0
		if j.slice >= 0 && n > 0 && vol[j.svc][j.slice] > float64(n) {
			weight = vol[j.svc][j.slice] / float64(n)
		}
		sampled += n
		lvl := func(st stream) string {
			return firstNonEmpty(st.Stream["level"], st.Stream["severity"], st.Stream["detected_level"])
		}
		for _, st := range streams {
			for _, v := range st.Values {
				ns, err := strconv.ParseInt(v[0], 10, 64)
				if err != nil {
					continue
				}
				lines = append(lines, investigate.LogLine{Service: firstNonEmpty(ServiceOf(st.Stream, label), j.svc), Time: time.Unix(0, ns).UTC(), Line: v[1], Level: lvl(st), Weight: weight})
			}
		}
	}
	if investigate.Sequential(ctx) {
		for _, j := range jobs {
			run(j)
		}
	} else {
		var wg sync.WaitGroup
		sem := make(chan struct{}, templateParallel)
		for _, j := range jobs {
			wg.Add(1)
			go func(j job) {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				run(j)
			}(j)
		}
		wg.Wait()
	}
	if len(jobs) > 0 && len(errs) == len(jobs) {
		return nil, errs[0]
	}
	fs := investigate.SummarizeTemplates(lines, start, end, investigate.TemplateOptions{Buckets: templateBuckets})
	sum := fmt.Sprintf("%d lines of %d services in %d templates", sampled, len(names), len(fs))
	if skipped > 0 {
		sum += fmt.Sprintf(" (%d quieter services not read)", skipped)
	}
	if len(errs) > 0 {
		sum += fmt.Sprintf(" (%d of %d reads failed: %v)", len(errs), len(jobs), errs[0])
	}
	type view struct {
		Service, Template, Level string
		Count                    int
		First, Last              time.Time
	}
	var views []view
	for i, f := range fs {
		if i >= 40 {
			break
		}
		views = append(views, view{Service: f.Service, Template: f.Quote, Level: f.Attrs["level"], Count: f.Count, First: f.Time, Last: f.LastTime})
	}
	return &investigate.ToolResult{Summary: sum, Findings: fs, Data: map[string]any{"services": names, "lines_read": sampled, "templates": views}}, nil
}

// volumes asks Loki for the exact number of lines per service and slice.
func (c *Capability) volumes(ctx context.Context, label string, services []string, namespace string, start, end time.Time, slice time.Duration) (volume, error) {
	step := slice
	q := fmt.Sprintf(`sum by (%s) (count_over_time(%s[%ds]))`, label, selector(label, services, namespace), int64(step/time.Second))
	v := url.Values{}
	v.Set("query", q)
	// Metric range windows are (t-range, t]: the first evaluation at
	// start+step counts the first slice.
	v.Set("start", strconv.FormatInt(start.Add(step).UnixNano(), 10))
	v.Set("end", strconv.FormatInt(end.UnixNano(), 10))
	v.Set("step", strconv.FormatInt(int64(step/time.Second), 10))
	body, err := c.getRange(ctx, v)
	if err != nil {
		return nil, err
	}
	if body.Status != "success" || body.Data.ResultType != "matrix" {
		return nil, investigate.NewToolError(investigate.ErrKindBadResponse, fmt.Sprintf("line volume query returned %q %q", body.Status, body.Data.ResultType), nil)
	}
	var series []struct {
		Metric map[string]string `json:"metric"`
		Values [][2]any          `json:"values"`
	}
	if err := json.Unmarshal(body.Data.Result, &series); err != nil {
		return nil, investigate.NewToolError(investigate.ErrKindBadResponse, "line volume result", err)
	}
	out := volume{}
	for _, s := range series {
		svc := s.Metric[label]
		if svc == "" {
			continue
		}
		counts := make([]float64, templateSlices)
		for _, p := range s.Values {
			ts, ok := p[0].(float64)
			vs, ok2 := p[1].(string)
			if !ok || !ok2 {
				continue
			}
			n, err := strconv.ParseFloat(vs, 64)
			if err != nil {
				continue
			}
			at := time.Unix(0, int64(ts*1e9))
			i := int(at.Sub(start.Add(step)) / step)
			if i >= 0 && i < templateSlices {
				counts[i] += n
			} else if i >= templateSlices {
				counts[templateSlices-1] += n
			}
		}
		out[svc] = counts
	}
	return out, nil
}
