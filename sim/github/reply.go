package github

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Documentation links GitHub puts into error bodies. go-github recognises
// secondary rate limits by the suffix of documentation_url.
const (
	docsREST          = "https://docs.github.com/rest"
	docsPrimaryRate   = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits"
	docsSecondaryRate = "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"

	msgSecondaryRate = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. " +
		"If you reach out to GitHub Support for help, please include the request ID."
)

// reply is a handler's response before it is written.
type reply struct {
	status int
	body   any
	raw    []byte // sent as is instead of body when set
	header http.Header
}

func ok(status int, body any) *reply {
	return &reply{status: status, body: body, header: http.Header{}}
}

// errorBody is GitHub's error document.
type errorBody struct {
	Message          string       `json:"message"`
	Errors           []fieldError `json:"errors,omitempty"`
	DocumentationURL string       `json:"documentation_url"`
	Status           string       `json:"status"`
}

// fieldError is one entry of a 422 "Validation Failed" errors array.
type fieldError struct {
	Resource string `json:"resource,omitempty"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

func fail(status int, message string) *reply {
	return ok(status, errorBody{Message: message, DocumentationURL: docsREST, Status: strconv.Itoa(status)})
}

// unprocessable is a 422 with a top-level message, as the Git Data API sends.
func unprocessable(message string) *reply { return fail(http.StatusUnprocessableEntity, message) }

// invalid is a 422 "Validation Failed" with an errors array.
func invalid(errs ...fieldError) *reply {
	return ok(http.StatusUnprocessableEntity, errorBody{
		Message: "Validation Failed", Errors: errs, DocumentationURL: docsREST,
		Status: strconv.Itoa(http.StatusUnprocessableEntity),
	})
}

func notFound() *reply { return fail(http.StatusNotFound, "Not Found") }

func badJSON() *reply { return fail(http.StatusBadRequest, "Problems parsing JSON") }

func primaryRateLimit(status, limit int, reset time.Time, message string) *reply {
	if message == "" {
		message = "API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID."
	}
	out := ok(status, errorBody{Message: message, DocumentationURL: docsPrimaryRate, Status: strconv.Itoa(status)})
	setRateHeaders(out.header, limit, 0, reset)
	return out
}

// summary is the compact response the transcript keeps: the status and a few
// identifying fields, never the body (installation tokens stay out). It reads
// the reply's Go value, so large bodies are not decoded again.
func (r *reply) summary(status int) map[string]any {
	out := map[string]any{"status": status}
	if r.raw != nil {
		out["bytes"] = len(r.raw)
		return out
	}
	var fields map[string]any
	switch b := r.body.(type) {
	case nil:
		return out
	case errorBody:
		out["message"] = b.Message
		if len(b.Errors) > 0 {
			out["errors"] = b.Errors
		}
		return out
	case map[string]any:
		fields = b
	case json.RawMessage: // a seeded commit, served verbatim
		var sha struct {
			SHA string `json:"sha"`
		}
		if json.Unmarshal(b, &sha) == nil {
			out["sha"] = sha.SHA
		}
		return out
	default:
		if v := reflect.ValueOf(b); v.Kind() == reflect.Slice {
			out["count"] = v.Len()
		}
		return out
	}
	for _, k := range []string{"sha", "ref", "number", "state", "title", "path", "id", "status", "ahead_by"} {
		v, present := fields[k]
		if !present || v == nil {
			continue
		}
		if k == "status" {
			k = "compare_status"
		}
		if s, isStr := v.(string); isStr && len(s) > 200 {
			v = s[:200] + "…"
		}
		out[k] = v
	}
	if obj, isObj := fields["object"].(map[string]any); isObj {
		out["sha"] = obj["sha"]
	}
	return out
}

// decode unmarshals the request body into v.
func (rc *reqCtx) decode(v any) *reply {
	if len(rc.body) == 0 {
		return badJSON()
	}
	if err := json.Unmarshal(rc.body, v); err != nil {
		return badJSON()
	}
	return nil
}

// paginate applies per_page/page to n items, sets the Link header on out and
// returns the slice bounds.
func (rc *reqCtx) paginate(n int, out *reply) (lo, hi int, bad *reply) {
	q := rc.r.URL.Query()
	perPage, page := 30, 1
	if v := q.Get("per_page"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 {
			return 0, 0, invalid(fieldError{Field: "per_page", Code: "invalid", Message: fmt.Sprintf("per_page %q is not a positive integer", v)})
		}
		perPage = min(p, 100)
	}
	if v := q.Get("page"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 {
			return 0, 0, invalid(fieldError{Field: "page", Code: "invalid", Message: fmt.Sprintf("page %q is not a positive integer", v)})
		}
		page = p
	}
	last := max((n+perPage-1)/perPage, 1)
	lo = min((page-1)*perPage, n)
	hi = min(lo+perPage, n)
	var links []string
	if page < last {
		links = append(links, fmt.Sprintf(`<%s>; rel="next"`, rc.linkURL(page+1)), fmt.Sprintf(`<%s>; rel="last"`, rc.linkURL(last)))
	}
	if page > 1 {
		links = append(links, fmt.Sprintf(`<%s>; rel="prev"`, rc.linkURL(min(page-1, last))), fmt.Sprintf(`<%s>; rel="first"`, rc.linkURL(1)))
	}
	if len(links) > 0 {
		out.header.Set("Link", strings.Join(links, ", "))
	}
	return lo, hi, nil
}

// listReply paginates items into a 200 reply.
func listReply[T any](rc *reqCtx, items []T) *reply {
	out := ok(http.StatusOK, nil)
	lo, hi, bad := rc.paginate(len(items), out)
	if bad != nil {
		return bad
	}
	page := items[lo:hi]
	if page == nil {
		page = []T{}
	}
	out.body = page
	return out
}

func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// nullableTime is an RFC 3339 time or JSON null.
func nullableTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := isoTime(t)
	return &s
}
