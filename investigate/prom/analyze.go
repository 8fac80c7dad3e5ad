package prom

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

// Analyze turns health series into findings.
func Analyze(series []Series, start, end time.Time, namespace string, services []string) *investigate.ToolResult {
	byName := map[string][]Series{}
	for _, s := range series {
		if namespace != "" && s.Metric["namespace"] != "" && s.Metric["namespace"] != namespace {
			continue
		}
		byName[s.Metric["__name__"]] = append(byName[s.Metric["__name__"]], s)
	}
	var fs []investigate.Finding
	fs = append(fs, restarts(byName["kube_pod_container_status_restarts_total"])...)
	for _, name := range []string{"kube_pod_container_status_last_terminated_reason", "kube_pod_container_status_terminated_reason", "kube_pod_container_status_waiting_reason", "kube_pod_status_reason"} {
		fs = append(fs, reasons(name, byName[name])...)
	}
	fs = append(fs, nodeConditions(byName["kube_node_status_condition"])...)
	fs = append(fs, memoryAgainstLimits(byName["container_memory_working_set_bytes"], byName["kube_pod_container_resource_limits"])...)
	for _, name := range []string{"traces_span_metrics_calls_total", "traces_spanmetrics_calls_total", "calls_total", "http_server_requests_seconds_count", "http_requests_total", "http_server_request_duration_seconds_count", "grpc_server_handled_total"} {
		fs = append(fs, errorRates(name, byName[name])...)
	}
	fs = append(fs, cpuThrottling(byName["container_cpu_cfs_throttled_periods_total"], byName["container_cpu_cfs_periods_total"], byName["kube_pod_container_resource_limits"])...)
	fs = append(fs, autoscalerAtMax(byName["kube_horizontalpodautoscaler_status_current_replicas"], byName["kube_horizontalpodautoscaler_spec_max_replicas"], byName["kube_horizontalpodautoscaler_spec_min_replicas"], byName["kube_horizontalpodautoscaler_status_desired_replicas"])...)
	fs = append(fs, growthWithUptime("container_memory_working_set_bytes", "memory working set grows", byName["container_memory_working_set_bytes"])...)
	fs = append(fs, growthWithUptime("go_goroutines", "goroutines grow", byName["go_goroutines"])...)
	fs = append(fs, growthWithUptime("jvm_threads_live_threads", "live threads grow", byName["jvm_threads_live_threads"])...)
	fs = append(fs, nodeClocks(byName["node_timex_offset_seconds"], byName["node_timex_sync_status"])...)
	fs = append(fs, redisAtMaxmemory(byName["redis_memory_used_bytes"], byName["redis_memory_max_bytes"])...)
	fs = append(fs, usageAtLimit(byName)...)
	fs = append(fs, alarmsRaised(byName)...)
	for _, name := range latencyHistograms {
		fs = append(fs, latencyRise(name, byName[name])...)
	}
	for _, name := range []string{"hikaricp_connections_pending", "db_client_connections_pending_requests", "pgbouncer_pools_client_waiting_connections"} {
		fs = append(fs, pools(name, byName[name])...)
	}
	for _, name := range []string{"probe_ssl_earliest_cert_expiry", "x509_cert_not_after", "certmanager_certificate_expiration_timestamp_seconds"} {
		fs = append(fs, certs(name, byName[name], end)...)
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Time.Before(fs[j].Time) })
	var kept []Series
	for _, ss := range byName {
		kept = append(kept, ss...)
	}
	cps := ChangePoints(kept)
	parts := []string{fmt.Sprintf("%d series", len(series))}
	for _, f := range fs {
		if len(parts) >= 5 {
			break
		}
		parts = append(parts, f.Quote)
	}
	sum := strings.Join(parts, "; ")
	if len(fs) == 0 {
		sum += "; no anomaly"
	}
	if len(cps) > 0 {
		sum += fmt.Sprintf("; %d change points, first: %s", len(cps), cps[0].Quote)
	}
	var views []map[string]any
	for i, f := range fs {
		if i >= 30 {
			break
		}
		views = append(views, map[string]any{"service": f.Service, "what": f.Quote, "since": f.Time, "error_type": f.ErrorType, "attrs": evidenceAttrs(f.Attrs)})
	}
	var cpViews []string
	for i, f := range cps {
		if i >= 20 {
			break
		}
		cpViews = append(cpViews, f.Quote)
	}
	fs = append(fs, cps...)
	return &investigate.ToolResult{Summary: sum, Findings: fs, Data: map[string]any{"series": len(series), "anomalies": views, "change_points": cpViews}}
}

// evidenceAttrs are a finding's attributes less those that only say how
// the evidence chart draws its series (a model reading the data needs
// none of them).
func evidenceAttrs(attrs map[string]string) map[string]string {
	out := make(map[string]string, len(attrs))
	for k, v := range attrs {
		if k != "series" && k != "unit" {
			out[k] = v
		}
	}
	return out
}

func anomaly(service, quote string, at time.Time, et investigate.ErrorType, sig string, attrs map[string]string) investigate.Finding {
	return investigate.Finding{Kind: investigate.KindMetricAnomaly, Family: investigate.FamilyMetrics, Service: service,
		ErrorType: et, Signature: sig, Time: at, LastTime: at, Count: 1, Quote: quote, Attrs: attrs}
}

// increase sums positive deltas, treating a drop as a counter reset.
func increase(pts []Point) (total float64, first time.Time) {
	for i := 1; i < len(pts); i++ {
		d := pts[i].V - pts[i-1].V
		if d < 0 {
			d = pts[i].V
		}
		if d > 0 {
			total += d
			if first.IsZero() {
				first = pts[i].T
			}
		}
	}
	return total, first
}

func restarts(series []Series) []investigate.Finding {
	type agg struct {
		n     float64
		first time.Time
		pods  map[string]bool
	}
	by := map[string]*agg{}
	for _, s := range series {
		n, first := increase(s.Points)
		if n < 1 {
			continue
		}
		svc := serviceOf(s.Metric)
		a := by[svc]
		if a == nil {
			a = &agg{pods: map[string]bool{}}
			by[svc] = a
		}
		a.n += n
		a.pods[s.Metric["pod"]] = true
		if a.first.IsZero() || first.Before(a.first) {
			a.first = first
		}
	}
	var out []investigate.Finding
	for _, svc := range sortedKeys(by) {
		a := by[svc]
		out = append(out, anomaly(svc, fmt.Sprintf("%s: %.0f container restarts across %d pods", svc, a.n, len(a.pods)), a.first,
			investigate.ErrUnknown, "", map[string]string{"metric": "restarts", "restarts": fmt.Sprintf("%.0f", a.n), "pods": fmt.Sprint(len(a.pods))}))
	}
	return out
}

func reasons(metric string, series []Series) []investigate.Finding {
	type agg struct {
		first time.Time
		pods  map[string]bool
	}
	by := map[[2]string]*agg{}
	for _, s := range series {
		reason := s.Metric["reason"]
		if reason == "" || reason == "Completed" || reason == "ContainerCreating" || reason == "PodInitializing" {
			continue
		}
		for _, p := range s.Points {
			if p.V < 1 {
				continue
			}
			k := [2]string{serviceOf(s.Metric), reason}
			a := by[k]
			if a == nil {
				a = &agg{pods: map[string]bool{}}
				by[k] = a
			}
			a.pods[s.Metric["pod"]] = true
			if a.first.IsZero() || p.T.Before(a.first) {
				a.first = p.T
			}
			break
		}
	}
	keys := make([][2]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	var out []investigate.Finding
	for _, k := range keys {
		a := by[k]
		what := strings.TrimPrefix(strings.TrimPrefix(metric, "kube_pod_container_status_"), "kube_pod_status_")
		quote := fmt.Sprintf("%s: %s %s in %d pods", k[0], strings.ReplaceAll(what, "_", " "), k[1], len(a.pods))
		f, ok := investigate.TextFinding(investigate.KindMetricAnomaly, investigate.FamilyMetrics, k[0], k[1], a.first)
		if !ok {
			f = anomaly(k[0], quote, a.first, investigate.ErrUnknown, "", nil)
		}
		f.Quote = quote
		f.Attrs = map[string]string{"metric": metric, "reason": k[1], "pods": fmt.Sprint(len(a.pods))}
		out = append(out, f)
	}
	return out
}

func nodeConditions(series []Series) []investigate.Finding {
	var out []investigate.Finding
	for _, s := range series {
		cond, status := s.Metric["condition"], strings.ToLower(s.Metric["status"])
		if status != "true" || cond == "Ready" || cond == "" {
			continue
		}
		for _, p := range s.Points {
			if p.V >= 1 {
				f, ok := investigate.TextFinding(investigate.KindMetricAnomaly, investigate.FamilyMetrics, "", cond, p.T)
				if !ok {
					f = anomaly("", "", p.T, investigate.ErrResourceExhaustion, "", nil)
				}
				f.Quote = fmt.Sprintf("node %s reports %s", s.Metric["node"], cond)
				f.Attrs = map[string]string{"metric": "node_condition", "node": s.Metric["node"], "condition": cond}
				out = append(out, f)
				break
			}
		}
	}
	return out
}

func memoryAgainstLimits(usage, limits []Series) []investigate.Finding {
	limitOf := map[[2]string]float64{}
	for _, s := range limits {
		if s.Metric["resource"] != "memory" || len(s.Points) == 0 {
			continue
		}
		limitOf[[2]string{s.Metric["pod"], s.Metric["container"]}] = s.Points[len(s.Points)-1].V
	}
	type agg struct {
		peak, limit float64
		at          time.Time
		pods        int
		series      []Point // the pod that came closest to its limit
	}
	by := map[string]*agg{}
	for _, s := range usage {
		if s.Metric["container"] == "" || s.Metric["container"] == "POD" {
			continue
		}
		limit := limitOf[[2]string{s.Metric["pod"], s.Metric["container"]}]
		if limit <= 0 {
			continue
		}
		var peak float64
		var at time.Time
		for _, p := range s.Points {
			if p.V > peak {
				peak, at = p.V, p.T
			}
		}
		ratio := peak / limit
		if ratio < 0.9 {
			continue
		}
		svc := serviceOf(s.Metric)
		a := by[svc]
		if a == nil {
			a = &agg{}
			by[svc] = a
		}
		a.pods++
		if ratio > a.peak/math.Max(a.limit, 1) {
			a.peak, a.limit, a.at, a.series = peak, limit, at, s.Points
		}
	}
	var out []investigate.Finding
	for _, svc := range sortedKeys(by) {
		a := by[svc]
		quote := fmt.Sprintf("%s: memory working set peaked at %s of a %s limit (%.0f%%) in %d pods", svc, bytesHuman(a.peak), bytesHuman(a.limit), 100*a.peak/a.limit, a.pods)
		f := anomaly(svc, quote, a.at, investigate.ErrOOM, "memory-near-limit", map[string]string{
			"metric": "memory_vs_limit", "peak_bytes": fmt.Sprintf("%.0f", a.peak), "limit_bytes": fmt.Sprintf("%.0f", a.limit),
			"limit": bytesHuman(a.limit), "ratio": fmt.Sprintf("%.2f", a.peak/a.limit), "series": "memory working set", "unit": "bytes"})
		f.Series = samples(a.series)
		out = append(out, f)
	}
	return out
}

// BytesHuman renders bytes the way Kubernetes quantities are written (128Mi).
func bytesHuman(b float64) string {
	switch {
	case b >= 1<<30 && math.Mod(b, 1<<30) == 0:
		return fmt.Sprintf("%.0fGi", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0fMi", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.0fKi", b/(1<<10))
	}
	return fmt.Sprintf("%.0f", b)
}

// errorLabel reports whether a request-counter series counts failures.
func errorLabel(m map[string]string) (isError, known bool) {
	if v, ok := m["status_code"]; ok {
		if strings.HasPrefix(v, "STATUS_CODE_") {
			return v == "STATUS_CODE_ERROR", true
		}
		return strings.HasPrefix(v, "5"), true
	}
	for _, k := range []string{"status", "code", "http_status_code", "http_response_status_code", "status_class"} {
		if v, ok := m[k]; ok && v != "" {
			return strings.HasPrefix(v, "5"), true
		}
	}
	if v, ok := m["outcome"]; ok {
		return v == "SERVER_ERROR", true
	}
	if v, ok := m["grpc_code"]; ok {
		switch v {
		case "OK", "Canceled", "InvalidArgument", "NotFound", "AlreadyExists", "PermissionDenied", "Unauthenticated", "FailedPrecondition", "OutOfRange":
			return false, true
		}
		return true, true
	}
	return false, false
}

func errorRates(metric string, series []Series) []investigate.Finding {
	type agg struct{ errs, total map[time.Time]float64 }
	by := map[string]*agg{}
	for _, s := range series {
		if k := s.Metric["span_kind"]; k != "" && k != "SPAN_KIND_SERVER" && k != "SPAN_KIND_CONSUMER" {
			continue
		}
		isErr, known := errorLabel(s.Metric)
		if !known {
			continue
		}
		svc := serviceOf(s.Metric)
		a := by[svc]
		if a == nil {
			a = &agg{errs: map[time.Time]float64{}, total: map[time.Time]float64{}}
			by[svc] = a
		}
		for i := 1; i < len(s.Points); i++ {
			d := s.Points[i].V - s.Points[i-1].V
			if d < 0 {
				d = s.Points[i].V
			}
			a.total[s.Points[i].T] += d
			if isErr {
				a.errs[s.Points[i].T] += d
			}
		}
	}
	var out []investigate.Finding
	for _, svc := range sortedKeys(by) {
		a := by[svc]
		times := make([]time.Time, 0, len(a.total))
		for t := range a.total {
			times = append(times, t)
		}
		sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
		if len(times) < 6 {
			continue
		}
		ratio := func(ts []time.Time) float64 {
			var e, t float64
			for _, x := range ts {
				e += a.errs[x]
				t += a.total[x]
			}
			if t == 0 {
				return 0
			}
			return e / t
		}
		// Onset: the first step from which the error ratio stays well above
		// the baseline of the first quarter of the window.
		baseline := ratio(times[:len(times)/4])
		onset := -1
		for i := len(times) / 4; i < len(times); i++ {
			r := ratio(times[i:min(i+3, len(times))])
			if r > max(baseline*3, baseline+0.01) && r >= 0.005 {
				onset = i
				break
			}
		}
		if onset < 0 {
			continue
		}
		after := ratio(times[onset:])
		if after < max(baseline*2, baseline+0.005) {
			continue
		}
		quote := fmt.Sprintf("%s: error ratio %.1f%% since %s (baseline %.1f%%)", svc, 100*after, times[onset].Format("15:04"), 100*baseline)
		f := anomaly(svc, quote, times[onset], "", "error-rate", map[string]string{
			"metric": metric, "ratio_after": fmt.Sprintf("%.4f", after), "ratio_before": fmt.Sprintf("%.4f", baseline),
			"series": "error ratio", "unit": "ratio"})
		// The ratio drawn is over a few steps around each: one step of a
		// quiet service (or one between two scrapes) holds no request.
		pts := make([]Point, 0, len(times))
		for i := range times {
			var e, t float64
			for _, x := range times[max(0, i-2):min(i+3, len(times))] {
				e += a.errs[x]
				t += a.total[x]
			}
			if t > 0 {
				pts = append(pts, Point{T: times[i], V: e / t})
			}
		}
		f.Series = samples(pts)
		out = append(out, f)
	}
	return out
}

func pools(metric string, series []Series) []investigate.Finding {
	var out []investigate.Finding
	for _, s := range series {
		run := 0
		for _, p := range s.Points {
			if p.V > 0 {
				run++
			} else {
				run = 0
			}
			if run == 3 {
				svc := serviceOf(s.Metric)
				out = append(out, anomaly(svc, fmt.Sprintf("%s: requests waiting for a pooled connection (%s)", svc, metric), p.T,
					investigate.ErrResourceExhaustion, "pool-waiting", map[string]string{"metric": metric, "pool": firstNonEmpty(s.Metric["pool"], s.Metric["pool_name"])}))
				break
			}
		}
	}
	return out
}

func certs(metric string, series []Series, end time.Time) []investigate.Finding {
	var out []investigate.Finding
	for _, s := range series {
		if len(s.Points) == 0 {
			continue
		}
		exp := time.Unix(int64(s.Points[len(s.Points)-1].V), 0).UTC()
		if exp.After(end) {
			continue
		}
		// The certificate names the service it serves (carrier-rates-tls);
		// the job label names cert-manager or the exporter.
		svc := certService(firstNonEmpty(s.Metric["name"], s.Metric["secret_name"], s.Metric["certificate"]))
		if svc == "" {
			svc = serviceOf(s.Metric)
		}
		target := firstNonEmpty(s.Metric["instance"], s.Metric["name"], s.Metric["secret_name"], svc)
		out = append(out, anomaly(svc, fmt.Sprintf("certificate for %s expired at %s", target, exp.Format(time.RFC3339)), exp,
			investigate.ErrTLS, "cert-expired", map[string]string{"metric": metric, "target": target}))
	}
	return out
}

func certService(name string) string {
	for _, suf := range []string{"-tls-secret", "-tls", "-cert", "-certificate", "-serving", "-server"} {
		if strings.HasSuffix(name, suf) {
			return strings.TrimSuffix(name, suf)
		}
	}
	return name
}
