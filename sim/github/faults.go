package github

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FaultKind selects what an injected fault answers.
type FaultKind int

// Fault kinds.
const (
	// FaultServerError answers Status (500 default; 502 and 503 are typical).
	FaultServerError FaultKind = iota + 1
	// FaultForbidden is a plain permission error (403).
	FaultForbidden
	// FaultRateLimit is the primary rate limit: X-RateLimit-Remaining: 0 and
	// X-RateLimit-Reset; Status 403 (default) or 429.
	FaultRateLimit
	// FaultSecondaryRateLimit is the secondary rate limit: Retry-After and
	// GitHub's documented message; Status 403 (default) or 429.
	FaultSecondaryRateLimit
	// FaultNotFound answers 404.
	FaultNotFound
	// FaultValidation answers 422 "Validation Failed" with an errors array.
	FaultValidation
	// FaultLatency only delays (by Delay); the request is then served normally.
	FaultLatency
)

func (k FaultKind) String() string {
	switch k {
	case FaultServerError:
		return "server_error"
	case FaultForbidden:
		return "forbidden"
	case FaultRateLimit:
		return "rate_limit"
	case FaultSecondaryRateLimit:
		return "secondary_rate_limit"
	case FaultNotFound:
		return "not_found"
	case FaultValidation:
		return "validation"
	case FaultLatency:
		return "latency"
	default:
		return "FaultKind(" + strconv.Itoa(int(k)) + ")"
	}
}

// Fault makes matching requests fail. Paths are matched without the
// /api/v3 prefix; in Path, "*" matches within one segment and "**" matches
// across segments ("/repos/acme/shop/git/refs**").
type Fault struct {
	Method string // "" or "*" matches any method
	Path   string
	Kind   FaultKind
	// Status overrides the default status of the kind where GitHub varies it
	// (server errors: 500/502/503; rate limits: 403/429).
	Status int
	// Times is how many matching requests fail; 0 means every one.
	Times int
	// Message overrides the error message.
	Message string
	// RetryAfter is the secondary limit's Retry-After, or how far in the
	// future a primary limit resets (default one minute).
	RetryAfter time.Duration
	// Delay is added before answering (for any kind).
	Delay time.Duration
}

type activeFault struct {
	Fault
	id   int
	re   *regexp.Regexp
	hits int
}

type faultSet struct {
	mu     sync.Mutex
	next   int
	faults []*activeFault
}

// globRE turns a fault path pattern into an anchored regexp.
func globRE(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); {
		switch {
		case strings.HasPrefix(pattern[i:], "**"):
			b.WriteString(".*")
			i += 2
		case pattern[i] == '*':
			b.WriteString("[^/]*")
			i++
		default:
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
			i++
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// match returns the first live fault for the request and counts the hit.
func (fs *faultSet) match(method, path string) *Fault {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, f := range fs.faults {
		if f.Times > 0 && f.hits >= f.Times {
			continue
		}
		if f.Method != "" && f.Method != "*" && !strings.EqualFold(f.Method, method) {
			continue
		}
		if !f.re.MatchString(path) {
			continue
		}
		f.hits++
		cp := f.Fault
		return &cp
	}
	return nil
}

// Inject adds a fault and returns its id.
func (s *Server) Inject(f Fault) (int, error) {
	if f.Kind < FaultServerError || f.Kind > FaultLatency {
		return 0, fmt.Errorf("github sim: unknown fault kind %d", f.Kind)
	}
	if !strings.HasPrefix(f.Path, "/") && !strings.HasPrefix(f.Path, "*") {
		return 0, fmt.Errorf("github sim: fault path %q must start with / or *", f.Path)
	}
	if f.Times < 0 || f.Delay < 0 || f.RetryAfter < 0 {
		return 0, fmt.Errorf("github sim: fault %s: negative Times, Delay or RetryAfter", f.Kind)
	}
	if err := checkFaultStatus(f); err != nil {
		return 0, err
	}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	if len(s.faults.faults) >= maxFaults {
		return 0, fmt.Errorf("github sim: more than %d faults injected", maxFaults)
	}
	s.faults.next++
	s.faults.faults = append(s.faults.faults, &activeFault{Fault: f, id: s.faults.next, re: globRE(f.Path)})
	return s.faults.next, nil
}

func checkFaultStatus(f Fault) error {
	if f.Status == 0 {
		return nil
	}
	allowed := map[FaultKind][]int{
		FaultServerError:        {500, 502, 503, 504},
		FaultRateLimit:          {403, 429},
		FaultSecondaryRateLimit: {403, 429},
	}[f.Kind]
	for _, a := range allowed {
		if a == f.Status {
			return nil
		}
	}
	return fmt.Errorf("github sim: fault %s cannot answer status %d", f.Kind, f.Status)
}

// RemoveFault deletes one fault.
func (s *Server) RemoveFault(id int) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	kept := s.faults.faults[:0]
	for _, f := range s.faults.faults {
		if f.id != id {
			kept = append(kept, f)
		}
	}
	s.faults.faults = kept
}

// ClearFaults deletes every fault.
func (s *Server) ClearFaults() {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.faults = nil
}

// FaultHits reports how many requests a fault has answered.
func (s *Server) FaultHits(id int) int {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	for _, f := range s.faults.faults {
		if f.id == id {
			return f.hits
		}
	}
	return 0
}

func (s *Server) faultReply(f *Fault) *reply {
	wait := f.RetryAfter
	if wait <= 0 {
		wait = time.Minute
	}
	status := f.Status
	switch f.Kind {
	case FaultServerError:
		if status == 0 {
			status = http.StatusInternalServerError
		}
		msg := f.Message
		if msg == "" {
			msg = map[int]string{500: "Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}[status]
		}
		return fail(status, msg)
	case FaultForbidden:
		msg := f.Message
		if msg == "" {
			msg = "Resource not accessible by integration"
		}
		return fail(http.StatusForbidden, msg)
	case FaultRateLimit:
		if status == 0 {
			status = http.StatusForbidden
		}
		reset := s.now().Add(wait)
		return primaryRateLimit(status, s.opts.RateLimit, reset, f.Message)
	case FaultSecondaryRateLimit:
		if status == 0 {
			status = http.StatusForbidden
		}
		msg := f.Message
		if msg == "" {
			msg = msgSecondaryRate
		}
		out := ok(status, errorBody{Message: msg, DocumentationURL: docsSecondaryRate, Status: strconv.Itoa(status)})
		out.header.Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
		return out
	case FaultNotFound:
		if f.Message != "" {
			return fail(http.StatusNotFound, f.Message)
		}
		return notFound()
	case FaultValidation:
		msg := f.Message
		if msg == "" {
			msg = "injected validation failure"
		}
		return invalid(fieldError{Resource: "Simulator", Code: "custom", Message: msg})
	default:
		return fail(http.StatusInternalServerError, "Server Error")
	}
}
