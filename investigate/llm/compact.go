package llm

import (
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/autoheal/autoheal/investigate"
)

// How much of a tool result the model is shown. A result enters the
// conversation in full; once the model has acted on it, and the
// conversation grows past what the remaining budget allows per request,
// it is compacted to its findings, and under a hard limit (the request
// cap, the investigation's budget, the server's context window) to a
// brief. Findings keep their ids, so an answer can still cite them.
const (
	levelFull     = iota // findings and data within ToolOutputChars
	levelFindings        // the findings only, lean, within compactChars
	levelBrief           // the summary and the best few findings' heads
)

// Sizes of compacted results.
const (
	compactChars = 1200
	briefChars   = 420
)

// shown is one tool result in the conversation.
type shown struct {
	rc    investigate.Receipt
	data  any
	full  string                 // rendered once, at levelFull, within the output budget
	lean  [levelBrief + 1]string // the compacted renderings, once made
	level int
	seen  bool // the model has answered a request that showed it
}

// turn is one message of the conversation. The text of a message that
// carries tool results is rendered from them at their current level.
type turn struct {
	msg   openai.ChatCompletionMessage
	head  string // text before the results (the first round's message)
	parts []*shown
	tail  string
}

// content renders the message's text.
func (t *turn) content(r *run) string {
	if len(t.parts) == 0 {
		return t.msg.Content
	}
	var b strings.Builder
	b.WriteString(t.head)
	for i, s := range t.parts {
		if i > 0 || t.head != "" {
			b.WriteString("\n")
		}
		b.WriteString(fence(r.fence, s.rc.Tool, r.show(s)))
	}
	if t.tail != "" {
		b.WriteString("\n" + t.tail)
	}
	return b.String()
}

// show renders one result at its level.
func (r *run) show(s *shown) string {
	if s.level == levelFull {
		return s.full
	}
	if s.lean[s.level] == "" {
		if s.level == levelFindings {
			s.lean[s.level] = r.p.clean.renderCompact(s.rc, compactChars, false)
		} else {
			s.lean[s.level] = r.p.clean.renderCompact(s.rc, briefChars, true)
		}
	}
	return s.lean[s.level]
}

// messages renders the conversation.
func (r *run) messages() []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, len(r.turns))
	for i, t := range r.turns {
		m := t.msg
		m.Content = t.content(r)
		out[i] = m
	}
	return out
}

// results lists the conversation's tool results, oldest first.
func (r *run) results() []*shown {
	var out []*shown
	for _, t := range r.turns {
		out = append(out, t.parts...)
	}
	return out
}

// markSeen records that the model has been shown every result so far.
func (r *run) markSeen() {
	for _, s := range r.results() {
		s.seen = true
	}
}

// compact raises the level of results, oldest first, until build's
// request is estimated at most target tokens or nothing more can be
// compacted. Results the model has not seen yet are compacted only when
// unseen allows it (a hard limit); maxLevel bounds how far. It returns the
// final estimate.
func (r *run) compact(build func() openai.ChatCompletionRequest, target, maxLevel int, unseen bool) int {
	est := estimateTokens(build())
	for level := levelFindings; level <= maxLevel && est > target; level++ {
		for _, s := range r.results() {
			if est <= target {
				break
			}
			if s.level >= level || (!s.seen && !unseen) {
				continue
			}
			s.level = level
			est = estimateTokens(build())
		}
	}
	return est
}

// leanAttrs are the finding attributes worth keeping once compacted: the
// short ones that name what is at fault, not samples or histograms.
var noisyAttrs = map[string]bool{"buckets": true, "sample": true, "template": true, "context": true, "added": true,
	"removed": true, "detail": true, "hunks": true, "labels": true, "window": true, "sha": true, "message": true}

// renderCompact renders a receipt as its findings only: each finding's
// head (id, kind, service, file:line, error type, count, times), its
// quote cut short, its top frames and its short attributes, ranked as in
// renderReceipt, within budget bytes. brief keeps only the heads of the
// findings that name an error type.
func (c *cleaner) renderCompact(r investigate.Receipt, budget int, brief bool) string {
	v := callView{Call: fmt.Sprintf("R%d", r.Seq), Tool: r.Tool, OK: r.OK, ErrorKind: string(r.ErrorKind),
		Error: c.clip(r.Error, 200), Warning: c.clip(r.Warning, 160), Summary: c.clip(r.Summary, 200)}
	v.Note = "compacted to its findings (the full output was shown earlier)"
	if brief {
		v.Summary = c.clip(r.Summary, 160)
		v.Note = "compacted to a brief (the full output was shown earlier)"
	} else if args, ok := c.value(toGeneric(r.Args)).(map[string]any); ok {
		v.Args = briefArgs(args)
	}
	// Findings first: call edges and the service inventory fill what is left.
	edges, services, fs := rankFindings(r)
	used := size(v)
	for _, rf := range fs {
		if brief && (rf.f.ErrorType == "" || rf.f.ErrorType == investigate.ErrUnknown) && rf.f.Kind != investigate.KindSourceAnchor && rf.f.Kind != investigate.KindManifest {
			v.Omitted++
			continue
		}
		fv := c.leanFinding(r.Seq, rf.idx, rf.f, brief)
		n := size(fv) + 1
		if used+n > budget && len(v.Findings) == 0 && !brief {
			// The most relevant finding stays, as a brief at least.
			fv = c.leanFinding(r.Seq, rf.idx, rf.f, true)
			n = size(fv) + 1
		}
		if used+n > budget && len(v.Findings) > 0 {
			v.Omitted++
			continue
		}
		v.Findings = append(v.Findings, fv)
		used += n
	}
	if brief {
		return marshalView(v)
	}
	for i, e := range edges {
		s := c.text(fmt.Sprintf("%s -> %s ×%d", e.Peer, e.Service, e.Count))
		if i == 6 || used+len(s)+20 > budget {
			break
		}
		v.CallEdges = append(v.CallEdges, s)
		used += len(s) + 20
	}
	for i, sv := range services {
		s := c.text(sv.Service)
		if i == 12 || used+len(s)+20 > budget {
			break
		}
		v.Services = append(v.Services, s)
		used += len(s) + 20
	}
	return marshalView(v)
}

func marshalView(v callView) string {
	b, err := marshal(v)
	if err != nil {
		return fmt.Sprintf(`{"call":%q,"tool":%q,"error":"output could not be encoded"}`, v.Call, v.Tool)
	}
	return string(b)
}

// leanFinding is viewFinding without its bulk.
func (c *cleaner) leanFinding(seq, i int, f investigate.Finding, brief bool) findingView {
	v := c.viewFinding(seq, i, f)
	v.Window, v.Function = "", truncate(v.Function, 80)
	if brief {
		v.Quote, v.Frames, v.Exception = "", nil, ""
	} else {
		v.Quote = truncate(v.Quote, 160)
		if len(v.Frames) > 3 {
			v.Frames = v.Frames[:3]
		}
	}
	attrs := map[string]string{}
	for k, val := range v.Attrs {
		if noisyAttrs[k] || len(val) > 80 || (brief && k != "field" && k != "path" && k != "value") {
			continue
		}
		attrs[k] = val
	}
	v.Attrs = nil
	if len(attrs) > 0 {
		v.Attrs = attrs
	}
	return v
}

// briefArgs keeps a call's scalar arguments; a list is shown by its length.
func briefArgs(args map[string]any) map[string]any {
	if len(args) == 0 {
		return nil
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		switch t := v.(type) {
		case []any:
			v = fmt.Sprintf("[%d items]", len(t))
		case map[string]any:
			v = "{…}"
		case string:
			v = truncate(t, 120)
		}
		out[k] = v
	}
	return out
}
