package investigate

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"time"
)

// candidate is one possible root cause: a service and an error type, with
// the evidence that supports it.
type candidate struct {
	Service   string
	ErrorType ErrorType
	// Signature is the most specific catalogue signature seen for it.
	Signature string
	Support   []Finding
	Families  map[Family]bool
	First     time.Time
	Score     float64

	traceOrigins  int // traces failing in this service's own code
	traceCallee   int // traces whose calls into this service failed
	logCallee     int // proxy access-log lines naming this service as the failing upstream
	traceRelayed  int // failing spans that only report an upstream failure they cannot name
	exceptions    int
	logCause      int
	logPropagated int
	infra         int // infra anomalies (metrics, Kubernetes)
	hasAppFrame   bool
	remoteWrapped bool
	// novel counts the templates of its logs that are new or surged at
	// the onset; logNovel the lines of such templates no error search
	// returned (warnings and info lines that name a failure); novelties
	// keeps them as evidence.
	novel     int
	logNovel  int
	novelLvl  float64
	novelties []Finding
	// dataShift weighs evidence that the data changed under the service:
	// a value shift in its routine lines, its last run's rejected input.
	dataShift float64
}

// evidence is everything a round of tool calls established.
type evidence struct {
	issue    Issue
	findings []Finding
	okFamily map[Family]bool
	known    []string
	hinted   map[string]bool // normalized names
	onset    time.Time
	calls    map[string]map[string]int // caller -> callee
	failing  bool                      // traces show failing requests
	restarts map[string]int
	rate     map[string]Finding // error-rate anomaly per service
	onChain  map[string]bool    // services in failing traces (origin or callee)
	// impact dates the impact for novelty and change points: onset, or
	// when nothing failing dates it, the trigger's time or the earliest
	// change point.
	impact time.Time
	novel  []novelty
	// earlier are log templates read before the window (the last run of a
	// named service silent in it).
	earlier []Finding
}

var remoteWrapRE = regexp.MustCompile(`(?i)rpc error: code = \w+ desc = |\b\d{1,2} (?:UNKNOWN|INTERNAL|UNAVAILABLE|DEADLINE_EXCEEDED|ABORTED|FAILED_PRECONDITION|RESOURCE_EXHAUSTED|CANCELLED): |StatusCode\.\w+|status(?: code)?[ =:]+5\d\d|returned (?:HTTP )?5\d\d|upstream|remote (?:error|service)|response from \S+:|Grpc\.Core\.RpcException|io\.grpc\.StatusRuntimeException|HttpRequestException|failed to call|error calling|call to \S+ failed`)

// remoteWrapped reports whether the error text was received from a callee
// (an RPC/HTTP client wrapping the callee's message) rather than raised here.
func remoteWrapped(f Finding) bool {
	if f.Family != FamilyLogs && f.Family != FamilyK8s {
		return false
	}
	if _, ok := TopAppFrame(f.Frames); ok {
		return false
	}
	q := f.Quote
	if loc := remoteWrapRE.FindStringIndex(q); loc != nil {
		if s := SignatureByID(f.Signature); s != nil {
			if m := s.Pattern.FindStringIndex(q); m != nil {
				return loc[0] <= m[0]
			}
		}
		return true
	}
	return false
}

func newEvidence(issue Issue, receipts []Receipt) *evidence {
	ev := &evidence{issue: issue, okFamily: map[Family]bool{}, hinted: map[string]bool{}, calls: map[string]map[string]int{},
		restarts: map[string]int{}, rate: map[string]Finding{}}
	known := map[string]bool{}
	for _, r := range receipts {
		if !r.OK {
			continue
		}
		ev.okFamily[r.Family] = true
		for _, f := range r.Findings {
			if f.Kind == KindLogTemplate && beforeWindow(f, issue) {
				ev.earlier = append(ev.earlier, f)
				continue
			}
			ev.findings = append(ev.findings, f)
			if f.Service != "" {
				known[f.Service] = true
			}
			if f.Kind == KindCallEdge {
				if ev.calls[f.Peer] == nil {
					ev.calls[f.Peer] = map[string]int{}
				}
				ev.calls[f.Peer][f.Service] += f.Count
				known[f.Peer] = true
			}
			if f.Family == FamilyTraces && (f.Kind == KindErrorSpan || f.Kind == KindException) {
				ev.failing = true
			}
			if f.Kind == KindMetricAnomaly && f.Attrs["metric"] == "restarts" {
				var n int
				fmt.Sscan(f.Attrs["restarts"], &n)
				ev.restarts[f.Service] += n
			}
			if f.Kind == KindMetricAnomaly && f.Signature == "error-rate" {
				ev.rate[f.Service] = f
			}
		}
	}
	for s := range known {
		ev.known = append(ev.known, s)
	}
	sort.Strings(ev.known)
	for _, h := range hintsOf(issue, ev.known) {
		ev.hinted[NormalizeServiceName(h)] = true
	}
	ev.onset = ev.estimateOnset()
	ev.impact = ev.impactOnset()
	ev.novel = ev.novelties()
	return ev
}

// hintsOf returns the services the trigger names: configured service,
// alert labels, and known services named in the text.
func hintsOf(issue Issue, known []string) []string {
	var out []string
	if issue.Service != "" {
		out = append(out, issue.Service)
	}
	for _, k := range []string{"service", "service_name", "app", "app_kubernetes_io_name", "k8s_deployment_name", "deployment", "container", "workload", "job"} {
		if v := issue.Labels[k]; v != "" && !genericJobName(v) {
			out = append(out, v)
		}
	}
	out = append(out, MatchServices(issue.Text, known)...)
	return out
}

func genericJobName(v string) bool {
	switch v {
	case "kube-state-metrics", "kubelet", "cadvisor", "node-exporter", "otel-collector", "opentelemetry-collector", "prometheus", "blackbox", "blackbox-exporter", "kubernetes-pods", "kubernetes-nodes":
		return true
	}
	return false
}

// estimateOnset dates the start of the user-visible impact: the first
// failing trace, the earliest error-rate change of a service, the alert's
// start or the time the reporter gave — whichever evidence exists, earliest
// first. Logs are not used: pre-existing noise would date it too early.
func (ev *evidence) estimateOnset() time.Time {
	var cands []time.Time
	for _, f := range ev.findings {
		if f.Family == FamilyTraces && (f.Kind == KindErrorSpan || f.Kind == KindException) && f.Count >= 2 {
			cands = append(cands, f.Time)
		}
	}
	for _, f := range ev.rate {
		cands = append(cands, f.Time)
	}
	if len(cands) == 0 {
		// An alert's "N times in the last 2 days" is a counting window, not
		// the start of the impact.
		if t, ok := ParseSince(ev.issue.Text, ev.issue.End); ok && (ev.issue.FiredAt.IsZero() || ev.issue.FiredAt.Sub(t) < 12*time.Hour) {
			cands = append(cands, t)
		}
		if t := ev.issue.alertStart(); !t.IsZero() {
			cands = append(cands, t)
		}
	}
	if len(cands) == 0 {
		return time.Time{}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].Before(cands[j]) })
	return cands[0]
}

// alertStart is when the first alert of the issue started firing.
func (i Issue) alertStart() time.Time { return i.FiredAt }

func (ev *evidence) isHinted(s string) bool { return ev.hinted[NormalizeServiceName(s)] }

// ownPlatform: signatures by which a service's own logs name a fault of its
// own platform (its permissions, disk, clock, configuration) rather than of
// a dependency it calls (DNS, TLS and refused connections blame the callee).
var ownPlatform = map[string]bool{
	"cloud-access-denied": true, "disk-full": true, "clock-skew": true, "missing-env": true, "config-parse": true,
	"go-fd": true, "node-heap": true, "java-oom": true,
}

// infraSignal reports whether a finding describes the platform (memory,
// images, probes, config, nodes, certificates) rather than the code.
func infraSignal(f Finding) bool {
	if f.Kind != KindMetricAnomaly && f.Kind != KindK8sEvent {
		if s := SignatureByID(f.Signature); s != nil && s.Infra && s.Role == RoleCause {
			return true
		}
		return false
	}
	switch f.Signature {
	case "", "error-rate":
		return false
	}
	if f.Attrs["probe_port_mismatch"] == "true" || f.Attrs["role"] == "no_memory_limit_on_pressured_node" {
		return true // the platform check fails because of the workload's own configuration
	}
	if s := SignatureByID(f.Signature); s != nil && (s.Role == RoleSymptom || !s.Infra) {
		return false // a symptom, or the code's own behaviour (memory growing with uptime)
	}
	return true
}

// candidates aggregates findings into (service, error type) candidates.
func (ev *evidence) candidates() []*candidate {
	by := map[string]*candidate{}
	get := func(svc string, et ErrorType) *candidate {
		if et == "" {
			et = ErrUnknown
		}
		k := svc + "|" + string(et)
		c := by[k]
		if c == nil {
			c = &candidate{Service: svc, ErrorType: et, Families: map[Family]bool{}}
			by[k] = c
		}
		return c
	}
	add := func(c *candidate, f Finding) {
		c.Support = append(c.Support, f)
		c.Families[f.Family] = true
		if c.First.IsZero() || (!f.Time.IsZero() && f.Time.Before(c.First)) {
			c.First = f.Time
		}
		if s := SignatureByID(f.Signature); s != nil {
			if cur := SignatureByID(c.Signature); cur == nil || s.Weight > cur.Weight {
				c.Signature = s.ID
			}
		}
	}
	for _, f := range ev.findings {
		switch f.Kind {
		case KindCallEdge, KindChangeCorrelation, KindSourceAnchor, KindManifest, KindInventory:
			continue
		}
		if f.Service == "" && f.Kind == KindMetricAnomaly && f.Attrs["metric"] == "node_condition" {
			continue // node conditions attach to the services evicted from them, below
		}
		if f.Service == "" {
			continue
		}
		switch {
		case f.Family == FamilyTraces:
			c := get(f.Service, f.ErrorType)
			sig := SignatureByID(f.Signature)
			switch {
			case f.Attrs["blame"] == "callee":
				c.traceCallee += f.Count
			case sig != nil && sig.Role == RolePropagated && f.Kind != KindException:
				c.traceRelayed += f.Count // "503 from upstream": the failure is further down, unseen
			default:
				c.traceOrigins += f.Count
			}
			if f.Kind == KindException && f.Attrs["blame"] != "callee" {
				c.exceptions += f.Count // a caller's exception is not the callee's
			}
			if _, ok := TopAppFrame(f.Frames); ok {
				c.hasAppFrame = true
			}
			add(c, f)
		case f.Kind == KindLogPattern && f.Attrs["upstream"] != "":
			// A proxy's access log names the upstream that failed.
			if up := ev.resolveUpstream(f.Attrs["upstream"]); up != "" && up != f.Service {
				c := get(up, f.ErrorType)
				g := f
				g.Attrs = copyAttrs(f.Attrs)
				g.Attrs["relayed_by"] = f.Service
				c.logCallee += f.Count
				add(c, g)
				continue
			}
			c := get(f.Service, f.ErrorType)
			c.logPropagated += f.Count
			add(c, f)
		case f.Kind == KindLogPattern && ev.namedCallee(f) != "":
			// "notify-otp: POST http://notify-otp...: 502 Bad Gateway": the
			// caller's log names the dependency that failed.
			callee := ev.namedCallee(f)
			c := get(callee, f.ErrorType)
			g := f
			g.Attrs = copyAttrs(f.Attrs)
			g.Attrs["relayed_by"] = f.Service
			c.logCallee += f.Count
			add(c, g)
		case f.Kind == KindLogPattern:
			role := RoleCause
			if s := SignatureByID(f.Signature); s != nil {
				role = s.Role
			}
			wrapped := remoteWrapped(f)
			c := get(f.Service, f.ErrorType)
			if wrapped || role == RolePropagated {
				c.logPropagated += f.Count
				c.remoteWrapped = c.remoteWrapped || wrapped
			} else {
				c.logCause += f.Count
				if ownPlatform[f.Signature] {
					c.infra++ // the service's own platform, named in its log (access denied, disk full)
				}
			}
			if _, ok := TopAppFrame(f.Frames); ok {
				c.hasAppFrame = true
			}
			add(c, f)
		case f.Kind == KindMetricAnomaly || f.Kind == KindK8sEvent:
			if f.Signature == "error-rate" || (f.Attrs["metric"] == "restarts") {
				continue // impact, not cause: used for onset and as symptoms
			}
			c := get(f.Service, f.ErrorType)
			if infraSignal(f) {
				c.infra++
				if isFieldFault(f) && f.Attrs[AttrObserved] == "true" {
					c.infra++ // the cluster's state names the field at fault, and showed it failing
				}
			}
			add(c, f)
		}
	}
	ev.framesFromTemplates(by)
	ev.addNovelties(by, get, add)
	ev.addDataEvidence(get, add)
	// A service that fails its callers (refused, reset, unavailable,
	// timed out) because of a cause of its own: an infrastructure signal or
	// an error raised in its code at the same time. The callers' failed
	// calls are that cause's effect, so they support it.
	for _, c := range sortedCandidates(by) {
		if c.Score < 0 || !c.isCause() {
			continue
		}
		for _, o := range sortedCandidates(by) {
			if o == c || o.Score < 0 || o.Service != c.Service || o.isCause() || !o.isAvailability() {
				continue
			}
			if c.infra == 0 && !aligned(c.First, o.First, 15*time.Minute) {
				continue
			}
			if ev.backgroundTo(c, o) {
				continue
			}
			c.traceCallee += o.traceCallee
			for fam := range o.Families {
				c.Families[fam] = true
			}
			c.Support = append(c.Support, o.Support...)
			c.takeNovelty(o)
			o.Score = -1 // absorbed
		}
	}
	// Pods evicted under node memory pressure are victims: the workloads
	// that use the memory without a limit on those nodes are the cause.
	for _, o := range sortedCandidates(by) {
		if o.Score < 0 {
			continue
		}
		var suspects []string
		for _, f := range o.Support {
			if sp := f.Attrs["pressure_suspects"]; sp != "" {
				suspects = strings.Split(sp, ",")
			}
		}
		if len(suspects) == 0 {
			continue
		}
		for _, sp := range suspects {
			if sp = strings.TrimSpace(sp); sp == "" || sp == o.Service {
				continue
			}
			t := get(sp, ErrResourceExhaustion)
			for _, f := range o.Support {
				if f.Family == FamilyK8s {
					g := f
					g.Attrs = copyAttrs(f.Attrs)
					g.Attrs["evicted"] = o.Service
					t.Support = append(t.Support, g)
				}
			}
			t.Families[FamilyK8s] = true
		}
		o.infra = 0 // an eviction is what happened to it, not what it did
	}
	// A caller's logs relaying its callee's failure (no peer in a log line)
	// belong to the callee when the traces show which one it is.
	callees := map[string]map[string]bool{} // caller -> callees blamed in traces
	for _, c := range by {
		for _, f := range c.Support {
			if f.Attrs["blame"] == "callee" && f.Peer != "" {
				if callees[f.Peer] == nil {
					callees[f.Peer] = map[string]bool{}
				}
				callees[f.Peer][c.Service] = true
			}
		}
	}
	for _, o := range sortedCandidates(by) {
		if o.Score < 0 || o.logPropagated == 0 || o.traceOrigins > 0 || o.traceCallee > 0 || o.infra > 0 || len(callees[o.Service]) != 1 {
			continue
		}
		sig := SignatureByID(o.Signature)
		if !sig.BlamesCallee() {
			continue
		}
		var callee string
		for k := range callees[o.Service] {
			callee = k
		}
		t := get(callee, o.ErrorType)
		for _, f := range o.Support {
			f.Attrs = copyAttrs(f.Attrs)
			f.Attrs["relayed_by"] = o.Service
			add(t, f)
		}
		t.logPropagated += o.logPropagated
		t.takeNovelty(o)
		o.Score = -1
	}
	// Input that cannot be read as written (a byte-order mark, a foreign
	// encoding) and runtime errors of the same service at the same time:
	// the code trips over the input, the errors are its consequence.
	absorbConsequences(by, func(d *candidate) bool { return inputDefects[d.Signature] }, func(o *candidate) bool {
		return o.ErrorType == ErrRuntime || o.ErrorType == ErrNullPointer
	}, 5*time.Minute)
	// A lock lost while its holder still worked and duplicate writes at the
	// same time: the duplicates are the race's consequence.
	absorbConsequences(by, func(r *candidate) bool { return r.hasSignature("lock-lost") }, func(o *candidate) bool {
		return o.ErrorType == ErrDataValidation && uniqueViolationRE.MatchString(joinQuotes(o.Support))
	}, 10*time.Minute)
	// A failure the traces saw without saying what it was (no signature)
	// and a typed explanation in the same service's logs at the same time
	// are one failure. Not a message that repeated as often before the
	// failure began: that is background, whatever it names.
	for _, u := range sortedCandidates(by) {
		if u.Score < 0 || u.ErrorType != ErrUnknown || u.Signature != "" {
			continue
		}
		var best *candidate
		for _, t := range sortedCandidates(by) {
			if t == u || t.Score < 0 || t.Service != u.Service || t.ErrorType == ErrUnknown || !aligned(t.First, u.First, 30*time.Minute) {
				continue
			}
			if ev.backgroundTo(t, u) {
				continue
			}
			if best == nil || t.logCause+t.traceOrigins+t.infra > best.logCause+best.traceOrigins+best.infra {
				best = t
			}
		}
		if best == nil {
			continue
		}
		best.absorb(u)
	}
	// An error that blames the other side of a connection (refused, out of
	// connections, bad certificate), raised in a service whose traces could
	// not name that side: when another service reports the same condition in
	// its own logs at the same time, that service is the other side.
	for _, o := range sortedCandidates(by) {
		sig := SignatureByID(o.Signature)
		if o.Score < 0 || !sig.BlamesCallee() || o.traceCallee > 0 || o.logCallee > 0 || o.traceOrigins+o.traceRelayed+o.logCause+o.logPropagated == 0 {
			continue // only failures raised in o's own requests can point at the other side
		}
		// The services the trigger names are where the impact is felt: the
		// other side is looked for among the rest first.
		others := sortedCandidates(by)
		sort.SliceStable(others, func(i, j int) bool { return !ev.isHinted(others[i].Service) && ev.isHinted(others[j].Service) })
		for _, t := range others {
			if t == o || t.Score < 0 || t.Service == o.Service || t.Signature != o.Signature || t.traceOrigins > 0 || t.traceCallee > 0 {
				continue
			}
			if o.traceOrigins+o.traceRelayed == 0 && ev.isHinted(t.Service) {
				continue // without traces, two named services failing alike are two victims
			}
			ownLogs := t.logCause + t.logPropagated + t.infra // its own logs, or its own metrics
			if ownLogs == 0 || !aligned(t.First, o.First, 10*time.Minute) {
				continue
			}
			t.traceCallee += o.traceOrigins + o.traceRelayed
			t.logCallee += o.logCause + o.logPropagated // the callers' own logs blame it
			t.infra += o.infra
			for fam := range o.Families {
				t.Families[fam] = true
			}
			for _, f := range o.Support {
				g := f
				g.Attrs = copyAttrs(f.Attrs)
				g.Attrs["relayed_by"] = o.Service
				t.Support = append(t.Support, g)
			}
			t.takeNovelty(o)
			o.Score = -1
			break
		}
	}
	// Several generic symptoms of one service's failure (429, 503, timeouts)
	// and one specific explanation (storage full, connection limit): the
	// specific one carries the evidence of all.
	for _, svc := range serviceNames(by) {
		var group []*candidate
		for _, c := range sortedCandidates(by) {
			if c.Service == svc && c.Score >= 0 && !c.isCause() && c.infra == 0 {
				group = append(group, c)
			}
		}
		if len(group) < 2 {
			continue
		}
		sort.SliceStable(group, func(i, j int) bool { return sigWeight(group[i].Signature) > sigWeight(group[j].Signature) })
		lead := group[0]
		for _, o := range group[1:] {
			if ev.backgroundTo(lead, o) {
				continue
			}
			lead.traceCallee += o.traceCallee
			lead.traceOrigins += o.traceOrigins
			lead.logPropagated += o.logPropagated
			lead.logCause += o.logCause
			for fam := range o.Families {
				lead.Families[fam] = true
			}
			lead.Support = append(lead.Support, o.Support...)
			lead.takeNovelty(o)
			o.Score = -1
		}
	}
	var out []*candidate
	for _, c := range by {
		if c.Score < 0 {
			continue
		}
		out = append(out, c)
	}
	ev.onChain = map[string]bool{}
	for _, c := range out {
		if c.traceOrigins > 0 || c.traceCallee > 0 {
			ev.onChain[c.Service] = true
		}
	}
	ev.routeLimitsToOwners(out)
	for _, c := range out {
		c.Score = ev.score(c)
	}
	demotePoolVictims(out)
	byScore := func() {
		sort.SliceStable(out, func(i, j int) bool {
			if out[i].Score != out[j].Score {
				return out[i].Score > out[j].Score
			}
			return out[i].Service < out[j].Service
		})
	}
	byScore()
	if ev.originFirst(out) {
		byScore()
	}
	return out
}

// backgroundTo: bg's evidence is a message that repeated as often before
// o's failures began as after: background noise, whatever it names, so
// neither explains o nor is o's symptom.
func (ev *evidence) backgroundTo(bg, o *candidate) bool {
	return !bg.First.IsZero() && !o.First.IsZero() && bg.First.Before(o.First) && ev.steadyNoiseAt(bg, o.First)
}

// originFirst: failures flow from callee to caller, and the root is often
// quieter than its victims. When the leading candidate depends on another
// service (it calls it in traces, or its failures name it) whose own
// failure started first, that service is the better cause: it leads.
// Reports whether the order changed.
func (ev *evidence) originFirst(cs []*candidate) bool {
	if len(cs) < 2 {
		return false
	}
	lead := cs[0]
	if lead.First.IsZero() || lead.infra > 0 {
		return false
	}
	for _, o := range cs[1:] {
		if o.Service == lead.Service || o.First.IsZero() || o.Score < 0.35*lead.Score {
			continue
		}
		own := o.logCause > 0 || o.traceOrigins > 0 || o.infra > 0 || o.novel > 0
		if !own || o.remoteWrapped {
			continue
		}
		// It started first (a minute of slack for clocks and sampling),
		// but not so long before that it is background.
		if o.First.After(lead.First.Add(time.Minute)) || lead.First.Sub(o.First) > 30*time.Minute {
			continue
		}
		if !ev.dependsOn(lead, o.Service) {
			continue
		}
		o.Score = lead.Score * 1.05
		return true
	}
	return false
}

// dependsOn: c's service calls svc (a trace edge), or c's failures name
// svc as the peer they could not get an answer from.
func (ev *evidence) dependsOn(c *candidate, svc string) bool {
	if ev.calls[c.Service][svc] > 0 {
		return true
	}
	n := 0
	for _, f := range c.Support {
		q := strings.ToLower(f.Quote)
		if f.Attrs["relayed_by"] == "" && (containsSetting(q, []string{strings.ToLower(svc)}) || namesLoosely(q, svc)) {
			n += max(f.Count, 1)
		}
	}
	return n > 0 && n*2 >= c.failures()
}

// isCause: the candidate's evidence says where the failure is raised (an
// infrastructure signal, or a cause-role error raised in the service).
func (c *candidate) isCause() bool {
	if c.infra > 0 {
		return true
	}
	if c.logCause == 0 && c.traceOrigins == 0 {
		return false
	}
	s := SignatureByID(c.Signature)
	return s != nil && s.Role == RoleCause
}

// isAvailability: the candidate only says the service failed its callers.
func (c *candidate) isAvailability() bool {
	switch c.ErrorType {
	case ErrNetwork, ErrTimeout, ErrDependency, ErrUnknown:
	default:
		return false
	}
	s := SignatureByID(c.Signature)
	return s == nil || s.Role != RoleCause || c.traceCallee > 0
}

func aligned(a, b time.Time, within time.Duration) bool {
	if a.IsZero() || b.IsZero() {
		return true
	}
	d := a.Sub(b)
	return d <= within && d >= -within
}

func sortedCandidates(by map[string]*candidate) []*candidate {
	out := make([]*candidate, 0, len(by))
	for _, c := range by {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Service != out[j].Service {
			return out[i].Service < out[j].Service
		}
		return out[i].ErrorType < out[j].ErrorType
	})
	return out
}

func sat(n int, k float64) float64 { return 1 - math.Exp(-float64(n)/k) }

// score weighs a candidate's evidence. The weights encode what an SRE
// trusts: a failure originating in a service's own code (trace origin with
// an exception and an application frame), an infrastructure signal from the
// platform itself (OOMKilled, image pull, probes, evictions), corroboration
// across independent families, and timing consistent with the impact.
func (ev *evidence) score(c *candidate) float64 {
	s := 0.0
	s += 3.0 * sat(c.traceOrigins, 2)
	if c.exceptions > 0 {
		s += 1.0
	}
	if c.hasAppFrame {
		s += 1.0
	}
	s += 2.0 * sat(c.traceCallee, 3)
	s += 1.5 * sat(c.logCallee, 3)
	s += 0.8 * sat(c.traceRelayed, 3)
	s += 2.0 * sat(c.logCause, 3)
	s += 0.6 * sat(c.logPropagated, 5)
	s += 2.5 * math.Min(float64(c.infra), 2)
	// What is new at the onset: a template of its own logs that appeared
	// or surged then, or warnings and info lines no error search returned.
	// A caller's new errors about its callee (refused, relayed) say where
	// the impact is felt, not where it comes from.
	if sig := SignatureByID(c.Signature); !sig.BlamesCallee() && (sig == nil || sig.Role != RolePropagated) && !c.remoteWrapped {
		if c.novel > 0 {
			s += 0.8 * c.novelLvl
		}
		s += 1.6 * c.novelLvl * sat(c.logNovel, 5)
	}
	if sig := SignatureByID(c.Signature); sig != nil {
		s *= 0.6 + 0.4*float64(sig.Weight)/100
		if sig.Role == RolePropagated && c.infra == 0 && c.traceCallee == 0 && c.traceOrigins == 0 {
			s *= 0.5
		}
	} else {
		s *= 0.5 // nothing in the catalogue recognises it
	}
	if c.remoteWrapped && c.logCause == 0 && c.traceOrigins == 0 && c.infra == 0 {
		s *= 0.3 // an error relayed from a callee
	}
	if n := len(c.Families); n > 1 {
		s += 0.75 * float64(n-1)
	}
	if c.infra > 0 && ev.restarts[c.Service] > 0 {
		s += 0.5
	}
	if ev.isHinted(c.Service) {
		s += 0.4
	}
	// What is new at the onset: a template of its own logs that appeared
	// or surged then, or warnings and info lines no error search returned.

	// A message as frequent before the onset as after it is noise, however
	// loud, when something else is new.
	if len(ev.novel) > 0 && ev.steadyOnly(c) {
		s *= 0.5
	}
	// Traces show which services fail requests: a service that appears in
	// no failing trace, while failing traces exist, is noise.
	if ev.failing && !ev.onChain[c.Service] && c.infra == 0 {
		s *= 0.45
	}
	// Timing: causes start at or just before the impact. Errors that were
	// already there long before, or start long after, are noise.
	if !ev.onset.IsZero() && !c.First.IsZero() {
		lead := ev.onset.Sub(c.First)
		switch {
		case lead > 20*time.Minute && c.infra == 0:
			s *= 0.35
		case lead > 90*time.Minute:
			s *= 0.6 // a platform event well before the impact: background, not its start
		case lead < -15*time.Minute:
			s *= 0.5
		}
	}
	// Data that changed under the service is dated by its own evidence
	// (aligned with the impact, or the job's last run), not by the onset.
	return s + c.dataShift
}

// hypothesis is the engine's current answer.
type hypothesis struct {
	c        *candidate
	runnerUp *candidate
	anchor   *Frame // the application frame the evidence points at
	bucket   Bucket
}

// best picks the leading candidate.
func (ev *evidence) best() *hypothesis {
	cs := ev.candidates()
	if len(cs) == 0 || cs[0].Score <= 0.3 {
		return nil
	}
	h := &hypothesis{c: cs[0]}
	for _, o := range cs[1:] {
		if o.Service != cs[0].Service {
			h.runnerUp = o
			break
		}
	}
	h.anchor = anchorOf(cs[0])
	return h
}

// anchorOf picks the application frame most of the candidate's evidence points at.
func anchorOf(c *candidate) *Frame {
	type key struct {
		file string
		line int
	}
	count := map[key]int{}
	frames := map[key]Frame{}
	for _, f := range c.Support {
		if f.Attrs["relayed_by"] != "" || f.Attrs["blame"] == "callee" || (f.Service != "" && f.Service != c.Service) {
			continue // frames of a caller's code say nothing about where the callee's defect is
		}
		top, ok := TopAppFrame(f.Frames)
		if !ok && f.File != "" && f.Line > 0 {
			top, ok = Frame{File: f.File, Line: f.Line, Function: f.Function}, true
		}
		if !ok {
			continue
		}
		k := key{top.File, top.Line}
		n := f.Count
		if n < 1 {
			n = 1
		}
		if f.Family == FamilyTraces {
			n *= 2 // a frame tied to a failing request outranks a log line
		}
		if f.Signature != "" && f.Signature == c.Signature {
			n *= 2 // where the error that defines the candidate was raised
		}
		count[k] += n
		if _, seen := frames[k]; !seen {
			frames[k] = top
		}
	}
	var best key
	bestN := 0
	for k, n := range count {
		if n > bestN || (n == bestN && k.file < best.file) {
			best, bestN = k, n
		}
	}
	if bestN == 0 {
		return nil
	}
	f := frames[best]
	return &f
}

func (h *hypothesis) describe() string {
	if h == nil {
		return ""
	}
	what := string(h.c.ErrorType)
	if s := SignatureByID(h.c.Signature); s != nil {
		what = s.Title
	}
	out := fmt.Sprintf("%s in %s", what, h.c.Service)
	if h.anchor != nil {
		out += fmt.Sprintf(" (%s:%d)", PathHint(*h.anchor), h.anchor.Line)
	}
	return out
}

// intermittent reports whether the candidate's failures are rare and spread
// out rather than a sustained failure: the mark of a flake.
func (ev *evidence) intermittent(c *candidate) bool {
	if r, ok := ev.rate[c.Service]; ok {
		var after float64
		fmt.Sscan(r.Attrs["ratio_after"], &after)
		if after >= 0.05 {
			return false
		}
		if after > 0 {
			return true
		}
	}
	n := c.failures()
	if n == 0 {
		return false
	}
	var first, last time.Time
	for _, f := range c.Support {
		if first.IsZero() || f.Time.Before(first) {
			first = f.Time
		}
		if f.LastTime.After(last) {
			last = f.LastTime
		}
	}
	span := last.Sub(first)
	// A handful of failures spread over a long time.
	return n <= 12 && span >= 20*time.Minute
}

// deployed returns the change that touched the anchored file: exact when its
// hunks cover the anchored line, near otherwise.
func (ev *evidence) deployed(path string, line int, before time.Time) (f Finding, exact bool, ok bool) {
	for _, c := range ev.findings {
		if c.Kind != KindChangeCorrelation || c.File == "" || path == "" {
			continue
		}
		if c.File != path && !strings.HasSuffix(path, "/"+c.File) && !strings.HasSuffix(c.File, "/"+path) {
			continue
		}
		if !before.IsZero() && c.Time.After(before.Add(5*time.Minute)) {
			continue // changed after the impact started: not the cause
		}
		hit := false
		for _, r := range strings.Split(c.Attrs["hunks"], ",") {
			var a, b int
			if _, err := fmt.Sscanf(r, "%d-%d", &a, &b); err == nil && line >= a-3 && line <= b+3 {
				hit = true
			}
		}
		if hit && !exact {
			f, exact, ok = c, true, true
		} else if !ok {
			f, ok = c, true
		}
	}
	return f, exact, ok
}

func sigWeight(id string) int {
	if s := SignatureByID(id); s != nil {
		return s.Weight
	}
	return 0
}

func serviceNames(by map[string]*candidate) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range by {
		if !seen[c.Service] {
			seen[c.Service] = true
			out = append(out, c.Service)
		}
	}
	sort.Strings(out)
	return out
}

func copyAttrs(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// resolveUpstream maps a proxy's upstream name (ingress-nginx
// "namespace-service-port", Envoy "outbound|8080||svc.ns") onto a known service.
func (ev *evidence) resolveUpstream(up string) string {
	nu := NormalizeServiceName(up)
	best := ""
	names := append(append([]string(nil), ev.known...), hintsOf(ev.issue, ev.known)...)
	for _, k := range names {
		nk := NormalizeServiceName(k)
		if len(nk) >= 4 && strings.Contains(nu, nk) && len(k) > len(best) {
			best = k
		}
	}
	return best
}

var urlHostRE = regexp.MustCompile(`(?i)\bhttps?://([a-z0-9][a-z0-9.-]*)`)
var prefixNameRE = regexp.MustCompile(`^\s*([a-z][a-z0-9_-]{2,40}):\s`)

// namedCallee returns the known service a relayed error names (the URL it
// called, or the "service: ..." prefix callers write), "" when none.
func (ev *evidence) namedCallee(f Finding) string {
	if f.Attrs["upstream"] != "" {
		return ""
	}
	sig := SignatureByID(f.Signature)
	if sig == nil || (sig.Role != RolePropagated && !sig.BlamesCallee()) {
		return ""
	}
	idx := NewServiceIndex(ev.known...)
	var names []string
	for _, m := range urlHostRE.FindAllStringSubmatch(f.Quote, 3) {
		names = append(names, m[1])
	}
	if m := prefixNameRE.FindStringSubmatch(f.Quote); m != nil {
		names = append(names, m[1])
	}
	for _, n := range names {
		if r := idx.Resolve(n); r != "" && r != f.Service {
			return r
		}
	}
	return ""
}

// clientPools: a client-side connection pool that cannot hand out a
// connection. That is the pool's own limit only while its server is healthy.
var clientPools = map[string]bool{"java-hikari": true, "py-pool": true, "db-pool": true}

// demotePoolVictims: a pool that runs dry while another service fails on a
// platform cause of its own (a database out of disk, crash-looping) starting
// no later than the pool does is that service's victim.
func demotePoolVictims(cs []*candidate) {
	for _, o := range cs {
		if !clientPools[o.Signature] {
			continue
		}
		for _, t := range cs {
			if t.Service == o.Service || t.infra == 0 || !t.isCause() || t.First.IsZero() || o.First.IsZero() {
				continue
			}
			if !t.First.After(o.First.Add(time.Minute)) && aligned(t.First, o.First, 10*time.Minute) {
				o.Score *= 0.6
				break
			}
		}
	}
}

// sharedProxyRE names shared edge proxies and ingress controllers.
var sharedProxyRE = regexp.MustCompile(`(?i)ingress|^nginx|envoy|traefik|haproxy|^kong|istio-?gateway|api-?gateway|^edge-?proxy|contour|ambassador`)

// routeLimits are rejections a proxy makes by a setting of the route it
// serves (body size), set on the service's own Ingress or route.
var routeLimits = map[string]bool{"body-too-large": true}

// routeLimitsToOwners: a shared proxy rejecting requests by a per-route
// limit reports a problem of the route's service, whose Ingress holds the
// setting: the candidate moves to the service the reporter named.
func (ev *evidence) routeLimitsToOwners(cs []*candidate) {
	for _, c := range cs {
		if !routeLimits[c.Signature] || !sharedProxyRE.MatchString(c.Service) {
			continue
		}
		for _, h := range hintsOf(ev.issue, ev.known) {
			if h != c.Service && !sharedProxyRE.MatchString(h) {
				for i := range c.Support {
					c.Support[i].Attrs = copyAttrs(c.Support[i].Attrs)
					c.Support[i].Attrs["relayed_by"] = c.Service
				}
				c.Service = h
				break
			}
		}
	}
}

// inputDefects: input the code cannot read as written.
var inputDefects = map[string]bool{"byte-order-mark": true, "text-encoding": true}

// absorb makes o's failures part of c: its requests, lines, exceptions and
// evidence count for c, and o is no longer a candidate of its own.
func (c *candidate) absorb(o *candidate) {
	c.takeNovelty(o)
	c.traceOrigins += o.traceOrigins
	c.traceCallee += o.traceCallee
	c.traceRelayed += o.traceRelayed
	c.logCause += o.logCause
	c.exceptions += o.exceptions
	c.hasAppFrame = c.hasAppFrame || o.hasAppFrame
	for fam := range o.Families {
		c.Families[fam] = true
	}
	c.Support = append(c.Support, o.Support...)
	o.Score = -1
}

// takeNovelty moves o's new and surging templates to c.
func (c *candidate) takeNovelty(o *candidate) {
	c.novel += o.novel
	c.logNovel += o.logNovel
	c.novelLvl = math.Max(c.novelLvl, o.novelLvl)
	c.novelties = append(c.novelties, o.novelties...)
	o.novel, o.logNovel, o.novelties = 0, 0, nil
}

// absorbConsequences lets each candidate that explains others (cause)
// absorb the candidates of the same service that are its consequences,
// when they start within the given time of it.
func absorbConsequences(by map[string]*candidate, cause, consequence func(*candidate) bool, within time.Duration) {
	for _, c := range sortedCandidates(by) {
		if c.Score < 0 || !cause(c) {
			continue
		}
		for _, o := range sortedCandidates(by) {
			if o != c && o.Score >= 0 && o.Service == c.Service && consequence(o) && aligned(o.First, c.First, within) {
				c.absorb(o)
			}
		}
	}
}
