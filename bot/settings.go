package bot

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
)

// evidenceKeys configure the backends that yield evidence; an
// investigation needs at least one.
var evidenceKeys = []string{"jaeger_url", "loki_url", "prometheus_url", "k8s_mcp_url"}

func hasEvidenceBackend(cfg config.Settings) bool {
	for _, k := range evidenceKeys {
		if strings.TrimSpace(cfg.Get(k)) != "" {
			return true
		}
	}
	return false
}

// resolve merges thread > channel > environment settings and registers the
// secrets with the redactor. A value that cannot be decrypted is left out
// (logged); other Redis failures are returned.
func (b *Bot) resolve(ctx context.Context, channel, threadTS string) (sessions.Resolved, error) {
	res, err := b.o.Store.Resolve(ctx, channel, threadTS, b.o.Env)
	var derr *sessions.DecryptError
	if errors.As(err, &derr) {
		b.log.Warn("settings that cannot be decrypted are ignored (was AUTOHEAL_ENCRYPTION_KEY changed?)", "channel", channel, "thread_ts", threadTS, "keys", derr.Keys)
		err = nil
	}
	if err != nil {
		return nil, err
	}
	for _, s := range res {
		if s.Secret {
			b.o.Redactor.Register(s.Value)
		}
	}
	return res, nil
}

func renderSettings(r sessions.Resolved) render.Settings {
	out := make(render.Settings, len(r))
	for k, s := range r {
		src := render.SourceEnv
		switch s.Source {
		case sessions.SourceThread:
			src = render.SourceThread
		case sessions.SourceChannel:
			src = render.SourceChannel
		}
		out[k] = render.Setting{Value: s.Value, Source: src}
	}
	return out
}

// saveOutcome is what applying settings did.
type saveOutcome struct {
	saved    map[string]string
	problems []string
	resumed  int
}

// saveSettings applies the trust boundary (vetSettings) to settings user
// gave through via, stores what passes in scope, registers secrets, and
// resumes the investigations parked for them.
func (b *Bot) saveSettings(ctx context.Context, scope sessions.Scope, user, via string, settings map[string]string, problems []string) saveOutcome {
	out := saveOutcome{problems: slices.Clone(problems)}
	settings, refused := b.vetSettings(ctx, scope, user, via, settings)
	out.problems = append(out.problems, refusalTexts(refused)...)
	if len(settings) == 0 {
		return out
	}
	for k, v := range settings {
		if config.IsSecret(k) {
			b.o.Redactor.Register(v)
		}
	}
	err := b.o.Store.Set(ctx, scope, settings)
	switch {
	case errors.Is(err, sessions.ErrNoEncryptionKey):
		// Save what is not secret; refuse the secrets with the reason.
		plain := map[string]string{}
		for k, v := range settings {
			if config.IsSecret(k) {
				out.problems = append(out.problems, k+": not saved: this AutoHeal cannot store secrets because AUTOHEAL_ENCRYPTION_KEY is not set")
				continue
			}
			plain[k] = v
		}
		settings = plain
		if len(plain) > 0 {
			err = b.o.Store.Set(ctx, scope, plain)
		} else {
			err = nil
		}
	case errors.Is(err, sessions.ErrTooManyKeys):
		out.problems = append(out.problems, "not saved: this scope holds too many settings")
		return out
	}
	if err != nil {
		b.log.Error("settings not saved", "scope", scope.String(), "err", err)
		out.problems = append(out.problems, "not saved: the session store is unavailable; try again")
		return out
	}
	out.saved = settings
	b.auditSaved(ctx, scope, user, via, settings)
	if len(settings) > 0 {
		b.log.Info("settings saved", "scope", scope.String(), "keys", sortedKeys(settings))
		out.resumed = b.resume(ctx, scope, sortedKeys(settings))
	}
	return out
}

// resume re-enqueues the investigations parked in scope that the given
// settings release. Any evidence backend releases a job waiting for one.
func (b *Bot) resume(ctx context.Context, scope sessions.Scope, given []string) int {
	for _, k := range given {
		if slices.Contains(evidenceKeys, k) {
			given = append(slices.Clone(given), evidenceKeys...)
			break
		}
	}
	ready, err := b.o.Store.Unpark(ctx, scope, given)
	if err != nil {
		b.log.Error("parked investigations not resumed", "scope", scope.String(), "err", err)
		return 0
	}
	n := 0
	for _, pj := range ready {
		job := pj.Job
		job.Attempt, job.EntryID = 0, ""
		if _, err := b.o.Queue.Enqueue(ctx, job); err != nil {
			b.log.Error("parked investigation not resumed", "job_id", job.ID, "err", err)
			// Put it back so the next setting retries.
			if perr := b.o.Store.Park(ctx, pj.Scope, pj.Job, evidenceKeys); perr != nil {
				b.log.Error("parked investigation lost", "job_id", job.ID, "err", perr)
			}
			continue
		}
		b.log.Info("parked investigation resumed", "job_id", job.ID, "scope", pj.Scope.String())
		n++
	}
	return n
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// settingsReply renders the ephemeral answer to settings: what was saved
// (secrets masked) and what was not.
func settingsReply(o saveOutcome, scope string, fromMessage bool) render.Message {
	var msgs []render.Message
	if len(o.saved) > 0 {
		msgs = append(msgs, render.ConfigSaved(render.SavedAck{Saved: o.saved, Scope: scope, FromMessage: fromMessage}))
	}
	if len(o.problems) > 0 {
		msgs = append(msgs, render.ConfigErrors(o.problems))
	}
	if o.resumed > 0 {
		msgs = append(msgs, text(":arrow_forward: Resuming "+plural(o.resumed, "investigation", "investigations")+" that waited for these settings."))
	}
	if len(msgs) == 0 {
		return render.ConfigSaved(render.SavedAck{Scope: scope})
	}
	out := render.Message{}
	var texts []string
	for _, m := range msgs {
		texts = append(texts, m.Text)
		out.Blocks = append(out.Blocks, m.Blocks...)
	}
	out.Text = strings.Join(texts, " ")
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// missingBackendMessage tells the thread an investigation waits for an
// evidence backend, and how to give one.
func missingBackendMessage(action *render.ActionValue) (render.Message, error) {
	m, err := render.MissingCredential("loki_url", action)
	if err != nil {
		return render.Message{}, err
	}
	alt := "No traces, logs, metrics or Kubernetes backend is configured for this thread. Any one of `jaeger_url`, `loki_url`, `prometheus_url` or `k8s_mcp_url` lets the investigation start (add `loki_token`, `jaeger_token`… if they need one)."
	block := slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, alt, false, false))
	blocks := append([]slack.Block{m.Blocks[0], block}, m.Blocks[1:]...)
	return render.Message{Text: m.Text, Blocks: blocks}, nil
}
