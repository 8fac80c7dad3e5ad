package bot

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/capset"
	"github.com/autoheal/autoheal/investigate/mcp"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/sessions"
)

// handleCommand answers /autoheal: help, status, config.
func (b *Bot) handleCommand(ctx context.Context, cmd slack.SlashCommand) {
	log := b.log.With("command", cmd.Command, "channel", cmd.ChannelID, "user", cmd.UserID)
	if !channelIDRE.MatchString(cmd.ChannelID) {
		log.Warn("slash command without a usable channel ignored")
		return
	}
	sub, rest, _ := strings.Cut(strings.TrimSpace(truncateBytes(cmd.Text, maxMessageBytes)), " ")
	switch strings.ToLower(sub) {
	case "", "help":
		b.respond(ctx, cmd.ResponseURL, helpMessage(b.o.MinBand, b.o.Remediator != nil), "help")
	case "status":
		b.respond(ctx, cmd.ResponseURL, b.status(ctx, cmd.ChannelID), "status")
	case "config", "set":
		rest = strings.TrimSpace(rest)
		if rest == "" {
			b.openChannelConfig(ctx, cmd, log)
			return
		}
		parsed := ParseAssignments(rest)
		out := b.saveSettings(ctx, sessions.ChannelScope(cmd.ChannelID), cmd.UserID, viaCommand, parsed.Settings, parsed.Problems)
		b.respond(ctx, cmd.ResponseURL, settingsReply(out, "this channel", false), "config reply")
	default:
		// The word is not echoed: it may be a secret typed by mistake.
		m := text("Unknown subcommand. Use `/autoheal config key=value …`, `/autoheal status` or `/autoheal help`.")
		b.respond(ctx, cmd.ResponseURL, m, "unknown subcommand")
	}
}

// openChannelConfig opens the settings modal for the whole channel.
func (b *Bot) openChannelConfig(ctx context.Context, cmd slack.SlashCommand, log *slog.Logger) {
	resolved, err := b.resolve(ctx, cmd.ChannelID, "")
	if err != nil {
		log.Warn("settings unavailable", "err", err)
		b.respond(ctx, cmd.ResponseURL, text(":warning: Settings are unavailable right now; try again in a moment."), "config error")
		return
	}
	v, err := channelConfigModal(renderSettings(resolved), cmd.ChannelID)
	if err == nil {
		err = b.openView(ctx, cmd.TriggerID, v)
	}
	if err != nil {
		log.Warn("config modal not opened", "err", err)
		b.respond(ctx, cmd.ResponseURL, text("I could not open the settings form; use `/autoheal config key=value …` instead."), "config error")
	}
}

func (b *Bot) openView(ctx context.Context, triggerID string, v slack.ModalViewRequest) error {
	if err := render.ValidateModal(v); err != nil {
		return err
	}
	// A trigger id is valid for 3 s: no retries beyond that.
	_, err := b.api.OpenViewContext(ctx, triggerID, v)
	return err
}

// helpMessage is /autoheal help as this AutoHeal is configured: which
// bands offer Approve follows the minimum band (AUTOHEAL_MIN_BAND), and
// whether pull requests are enabled at all.
func helpMessage(minBand investigate.Band, pullRequests bool) render.Message {
	return render.Help(render.HelpOptions{MinBand: minBand, PullRequests: pullRequests})
}

// capsetOptions are the capability options of every investigation: the
// job's extra capabilities and the operator's MCP servers.
func (b *Bot) capsetOptions(extra []investigate.Capability) capset.Options {
	return capset.Options{Extra: extra, MCP: b.o.MCP, MCPServers: b.o.MCPServers, Guard: b.guard}
}

// statusCapabilities reports which families the channel's settings enable.
func (b *Bot) statusCapabilities(ctx context.Context, cfg config.Settings) []render.CapabilityStatus {
	var extra []investigate.Capability
	var extraErr string
	if b.o.Extra != nil {
		ectx, cancel := context.WithTimeout(ctx, 3*time.Second)
		caps, closeFn, err := b.o.Extra(ectx, cfg)
		cancel()
		if err != nil {
			extraErr = b.o.Redactor.String(err.Error())
		} else {
			extra = caps
			if closeFn != nil {
				defer closeFn()
			}
		}
	}
	bctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	caps, err := capset.Build(bctx, cfg, b.capsetOptions(extra))
	cancel()
	if err != nil {
		b.log.Warn("mcp servers unavailable", "err", b.o.Redactor.String(err.Error()))
	}
	defer func() { _ = capset.Close(caps) }()
	e := investigate.New(investigate.Options{Capabilities: caps})
	down := map[investigate.Family]investigate.Unavailable{}
	for _, u := range e.Unavailable() {
		down[u.Family] = u
	}
	var out []render.CapabilityStatus
	for _, f := range []investigate.Family{investigate.FamilyTraces, investigate.FamilyLogs, investigate.FamilyMetrics,
		investigate.FamilyChanges, investigate.FamilySource, investigate.FamilyK8s} {
		u, isDown := down[f]
		if f == investigate.FamilyK8s && isDown && extraErr != "" {
			u.Reason = extraErr
		}
		out = append(out, render.CapabilityStatus{Family: f, Available: !isDown, Kind: u.Kind, Reason: u.Reason})
	}
	// The operator's MCP servers (mcp_servers:): one line, down while any is.
	var mcps int
	st := render.CapabilityStatus{Family: investigate.FamilyMCP, Available: true}
	for _, c := range caps {
		if _, ok := c.(*mcp.Capability); !ok {
			continue
		}
		mcps++
		if av := c.Availability(); !av.Configured {
			st.Available, st.Kind = false, av.Kind
			st.Reason = strings.TrimPrefix(strings.TrimSpace(st.Reason+"; "+b.o.Redactor.String(av.Reason)), "; ")
		}
	}
	if mcps > 0 {
		out = append(out, st)
	}
	return out
}

// status renders /autoheal status for a channel.
func (b *Bot) status(ctx context.Context, channel string) render.Message {
	resolved, err := b.resolve(ctx, channel, "")
	if err != nil {
		b.log.Warn("status: settings unavailable", "err", err)
		return text(":warning: Settings are unavailable right now (the session store does not answer); try again in a moment.")
	}
	view := render.StatusView{
		Settings:     renderSettings(resolved),
		Capabilities: b.statusCapabilities(ctx, resolved.Settings()),
		Planner:      b.o.PlannerName,
		Trust: &render.TrustView{Admins: b.o.Admins.MentionList(), AllowedHosts: b.allowedHosts,
			AllowedRepos: b.o.AllowedRepos},
	}
	if d, err := b.o.Queue.Depth(ctx); err == nil {
		view.QueueDepth = int(d.Stream)
		view.DeadLetterCount = int(d.Dead)
	} else {
		b.log.Warn("status: queue depth unavailable", "err", err)
	}
	if dls, err := b.o.Queue.DeadLetters(ctx, 5); err == nil {
		for _, dl := range dls {
			view.DeadLetters = append(view.DeadLetters, render.DeadLetter{
				JobID: dl.Job.ID, Issue: b.o.Redactor.String(jobIssueText(dl.Job)), Reason: b.o.Redactor.String(dl.Error),
				At: dl.FailedAt, Attempts: dl.Attempts,
			})
		}
	}
	return render.Status(view)
}

func jobIssueText(j sessions.Job) string {
	var p InvestigationJob
	if j.Kind != JobKindInvestigate || json.Unmarshal(j.Payload, &p) != nil {
		return j.Kind
	}
	return truncateRunes(p.Issue.Text, 80)
}
