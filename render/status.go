package render

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
)

// CapabilityStatus is one backend family as /autoheal status shows it.
type CapabilityStatus struct {
	Family    investigate.Family
	Available bool
	Kind      investigate.ErrorKind
	Reason    string
}

// DeadLetter is a job that failed for good.
type DeadLetter struct {
	JobID    string
	Issue    string // the issue text or alert name
	Reason   string // already redacted
	At       time.Time
	Attempts int
}

// StatusView is what /autoheal status reports.
type StatusView struct {
	Settings     Settings
	Capabilities []CapabilityStatus
	// Planner describes the planner in use, e.g. "LLM (gpt-4o-mini)" or
	// "deterministic — OPENAI_API_KEY not set".
	Planner    string
	QueueDepth int
	// DeadLetters are the most recent entries; DeadLetterCount is the total.
	DeadLetters     []DeadLetter
	DeadLetterCount int
	// Trust is who may change where the bot connects (nil: not shown).
	Trust *TrustView
}

// TrustView is the trust boundary of settings as the deployment set it.
type TrustView struct {
	// Admins are AUTOHEAL_ADMINS as Slack mentions (<@U…>, <!subteam^S…>).
	Admins []string
	// AllowedHosts (AUTOHEAL_ALLOWED_HOSTS) and the environment's backends.
	AllowedHosts []string
	// AllowedRepos (AUTOHEAL_ALLOWED_REPOS).
	AllowedRepos []string
}

// Status budgets keep the whole message under MaxBlocksText.
const (
	statusValueMax    = 80
	statusSourceMax   = 30
	statusUnknownKeys = 5
	statusCapsShown   = 12
	statusReasonMax   = 120
	deadLettersShown  = 5
	trustEntriesShown = 10
)

// displayValue renders a setting for status output: secrets and unknown keys
// masked with config.Mask, credentials inside URLs masked, the rest quoted.
func displayValue(name, value string) string {
	k, known := config.Lookup(name)
	if !known || k.Secret {
		return Escape(config.Mask(value))
	}
	return inlineCode(redactURL(value), statusValueMax)
}

// Status renders /autoheal status: configured keys with their source
// (secrets masked), capabilities with reasons, queue and dead letters.
func Status(s StatusView) Message {
	blocks := []slack.Block{header("AutoHeal status")}

	var set, unset []string
	for _, k := range config.Keys {
		cur, ok := s.Settings[k.Name]
		if !ok || strings.TrimSpace(cur.Value) == "" {
			unset = append(unset, "`"+k.Name+"`")
			continue
		}
		set = append(set, settingLine(k.Name, cur))
	}
	// Keys the catalogue does not know (yet) are shown masked.
	var extra []string
	for name, cur := range s.Settings {
		if _, ok := config.Lookup(name); !ok && strings.TrimSpace(cur.Value) != "" {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for i, name := range extra {
		if i == statusUnknownKeys {
			set = append(set, fmt.Sprintf("_… and %d more unknown keys_", len(extra)-i))
			break
		}
		set = append(set, settingLine(name, s.Settings[name]))
	}
	cfg := []string{"*Configuration*"}
	if len(set) == 0 {
		cfg = append(cfg, "_Nothing configured yet._")
	}
	cfg = append(cfg, set...)
	if len(unset) > 0 {
		cfg = append(cfg, "Not set: "+strings.Join(unset, ", "))
	}
	for _, chunk := range packLines(cfg, sectionBudget) {
		blocks = append(blocks, section(chunk))
	}

	caps := []string{"*Capabilities*"}
	if len(s.Capabilities) == 0 {
		caps = append(caps, "_No capabilities reported._")
	}
	for i, c := range s.Capabilities {
		if i == statusCapsShown {
			caps = append(caps, fmt.Sprintf("_… and %d more_", len(s.Capabilities)-i))
			break
		}
		if c.Available {
			caps = append(caps, "✓ "+FamilyLabel(c.Family))
			continue
		}
		line := "✗ " + FamilyLabel(c.Family) + " — " + ErrorKindLabel(c.Kind)
		if why := escLine(c.Reason, statusReasonMax); why != "" {
			line += ": " + why
		}
		caps = append(caps, line)
	}
	if p := escLine(s.Planner, 200); p != "" {
		caps = append(caps, "Planner: "+p)
	}
	blocks = append(blocks, section(truncateMrkdwn(strings.Join(caps, "\n"), sectionBudget)))
	if s.Trust != nil {
		blocks = append(blocks, section(truncateMrkdwn(trustLines(*s.Trust), sectionBudget)))
	}

	dlTotal := max(s.DeadLetterCount, len(s.DeadLetters))
	queue := []string{fmt.Sprintf("*Queue* %s waiting · %s", plural(max(s.QueueDepth, 0), "job", "jobs"), plural(dlTotal, "dead letter", "dead letters"))}
	for i, d := range s.DeadLetters {
		if i == deadLettersShown {
			break
		}
		line := "• " + inlineCode(d.JobID, 60)
		if is := escLine(d.Issue, 80); is != "" {
			line += " " + is
		}
		if d.Attempts > 0 {
			line += fmt.Sprintf(" · %s", plural(d.Attempts, "attempt", "attempts"))
		}
		if !d.At.IsZero() {
			line += " · " + slackDate(d.At)
		}
		if why := escLine(d.Reason, statusReasonMax); why != "" {
			line += " — " + why
		}
		queue = append(queue, line)
	}
	if dlTotal > min(len(s.DeadLetters), deadLettersShown) {
		queue = append(queue, fmt.Sprintf("_… %d more dead letters_", dlTotal-min(len(s.DeadLetters), deadLettersShown)))
	}
	blocks = append(blocks, section(truncateMrkdwn(strings.Join(queue, "\n"), sectionBudget)))

	available := 0
	for _, c := range s.Capabilities {
		if c.Available {
			available++
		}
	}
	text := fmt.Sprintf("AutoHeal status: %s configured, %d of %d capabilities available, %d queued, %s",
		plural(len(set), "setting", "settings"), available, len(s.Capabilities), max(s.QueueDepth, 0), plural(dlTotal, "dead letter", "dead letters"))
	return Message{Text: text, Blocks: blocks}
}

func settingLine(name string, cur Setting) string {
	line := inlineCode(name, 62) + " " + displayValue(name, cur.Value)
	if src := escLine(string(cur.Source), statusSourceMax); src != "" {
		line += " _(" + src + ")_"
	}
	return line
}

// HelpOptions say how this AutoHeal is configured, so that /autoheal
// help explains what it will do rather than a default.
type HelpOptions struct {
	// MinBand is the least confidence band that offers Approve
	// (AUTOHEAL_MIN_BAND); empty means MEDIUM, the bot's default.
	MinBand investigate.Band
	// PullRequests is true when approvals can open pull requests (a
	// remediator is configured); otherwise every result is a report.
	PullRequests bool
}

// Help renders /autoheal help: usage, what the confidence bands mean and
// which of them offer Approve here, and every setting key.
func Help(o HelpOptions) Message {
	usage := strings.Join([]string{
		"*AutoHeal* investigates production incidents: traces, logs, metrics, recent changes, Kubernetes state and the source lines they point at. It answers in the thread with a root cause, a confidence badge and a fix, and opens a pull request only after someone clicks *Approve*.",
		"",
		"• Mention it with what you see: `@autoheal ad service is throwing errors since 10am`",
		"• Add settings to a mention, one per line: `repo: acme/shop`",
		"• `/autoheal config key=value …` sets where to look; in a thread, use the *Configure* button",
		"• Backend URLs and credentials of a whole channel are for AutoHeal admins; a thread may point its URLs at allowed hosts only, and a URL given in a thread never receives the channel's or the deployment's credentials",
		"• `/autoheal status` shows settings, capabilities and the queue",
		"• `/autoheal help` shows this message",
	}, "\n")
	bands := helpBands(o)
	byGroup := map[string][]string{}
	for _, k := range config.Keys {
		line := "`" + k.Name + "`"
		if k.Secret {
			line += " :lock:"
		}
		if h := escLine(k.Help, 160); h != "" {
			line += " — " + h
		}
		byGroup[keyGroup(k.Name)] = append(byGroup[keyGroup(k.Name)], line)
	}
	keys := []string{"*Settings* (:lock: secret: stored encrypted, never shown)"}
	for _, g := range configGroups {
		if len(byGroup[g]) == 0 {
			continue
		}
		keys = append(keys, "_"+g+"_")
		keys = append(keys, byGroup[g]...)
	}
	blocks := []slack.Block{section(usage), section(bands)}
	for _, chunk := range packLines(keys, sectionBudget) {
		blocks = append(blocks, section(chunk))
	}
	return Message{Text: "AutoHeal help: mention @autoheal with the symptom; /autoheal config, /autoheal status.", Blocks: blocks}
}

// helpBands is the confidence section of the help: the bands, and which
// of them offer Approve with o's minimum band.
func helpBands(o HelpOptions) string {
	minBand, ok := investigate.ParseBand(string(o.MinBand))
	if !ok {
		minBand = investigate.BandMedium
	}
	lines := []string{
		"*Confidence* is earned from evidence, never asserted:",
		Badge(investigate.BandHigh) + " error type known, file anchored, source read, and corroborated by two independent sources",
		Badge(investigate.BandMedium) + " error type known and either corroborated or anchored in the source",
		Badge(investigate.BandLow) + " anything less",
	}
	var offer, report []string
	for _, band := range []investigate.Band{investigate.BandHigh, investigate.BandMedium, investigate.BandLow} {
		if band.AtLeast(minBand) {
			offer = append(offer, "*"+string(band)+"*")
		} else {
			report = append(report, "*"+string(band)+"*")
		}
	}
	plural := func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	}
	switch {
	case !o.PullRequests:
		lines = append(lines, "Pull requests are not enabled on this AutoHeal (no approvers are configured): every result is a report, with the fix to apply by hand.")
	case len(report) == 0:
		lines = append(lines, "Every band offers *Approve* (a pull request) when the fix is a change to a repository.")
	default:
		lines = append(lines, fmt.Sprintf("%s %s *Approve* (a pull request) when the fix is a change to a repository; %s %s a report, no pull request.",
			strings.Join(offer, " and "), plural(len(offer), "offers", "offer"), strings.Join(report, " and "), plural(len(report), "gets", "get")))
	}
	return strings.Join(lines, "\n")
}

// SavedAck describes settings that were just saved.
type SavedAck struct {
	// Saved maps each saved key to its value; secret values are only masked.
	Saved map[string]string
	// Scope names where the settings apply: "this thread" (default),
	// "this channel".
	Scope string
	// FromMessage is true when the values were typed in a visible message
	// (a mention), which must be deleted if it held a secret.
	FromMessage bool
}

// ConfigSaved renders the ephemeral acknowledgement of saved settings, e.g.
// "Saved repo, loki_url for this thread; github_token saved (••••). Please
// delete your message: it contains a secret."
func ConfigSaved(a SavedAck) Message {
	scope := escLine(a.Scope, 60)
	if scope == "" {
		scope = "this thread"
	}
	names := make([]string, 0, len(a.Saved))
	for k := range a.Saved {
		names = append(names, k)
	}
	sort.Strings(names)
	var plainKeys, secrets []string
	for _, k := range names {
		n := escLine(k, 60)
		if key, ok := config.Lookup(k); ok && !key.Secret {
			plainKeys = append(plainKeys, n)
			continue
		}
		secrets = append(secrets, n+" saved ("+Escape(config.Mask(a.Saved[k]))+")")
	}
	var s string
	switch {
	case len(plainKeys) > 0 && len(secrets) > 0:
		s = "Saved " + strings.Join(plainKeys, ", ") + " for " + scope + "; " + strings.Join(secrets, ", ") + "."
	case len(secrets) > 0:
		s = strings.Join(secrets, ", ") + " for " + scope + "."
	case len(plainKeys) > 0:
		s = "Saved " + strings.Join(plainKeys, ", ") + " for " + scope + "."
	default:
		s = "Nothing to save."
	}
	if a.FromMessage && len(secrets) > 0 {
		s += " Please delete your message: it contains a secret."
	}
	s = truncateMrkdwn(s, sectionBudget)
	return Message{Text: s, Blocks: []slack.Block{section(":white_check_mark: " + s)}}
}

// ConfigErrors renders the ephemeral reply to settings that were not saved.
// problems come from config.Check, which never includes values.
func ConfigErrors(problems []string) Message {
	lines := []string{"Not saved:"}
	for i, p := range problems {
		if i == 10 {
			lines = append(lines, fmt.Sprintf("… and %d more", len(problems)-i))
			break
		}
		lines = append(lines, "• "+escLine(p, 300))
	}
	s := truncateMrkdwn(strings.Join(lines, "\n"), sectionBudget)
	return Message{Text: s, Blocks: []slack.Block{section(":warning: " + s)}}
}

// MissingCredential tells the thread that an investigation waits for a
// credential. With action set, a Configure button is added; it fails only
// when action is invalid.
func MissingCredential(key string, action *ActionValue) (Message, error) {
	name := escLine(config.Normalize(bound(key, 200)), 60)
	if name == "" {
		name = "a credential"
	}
	s := "Missing credential: set " + name + " with `/autoheal config " + name + "=…` or the Configure button — the investigation resumes once it is set."
	blocks := []slack.Block{section(":key: " + s)}
	if action != nil {
		v, err := action.Encode()
		if err != nil {
			return Message{}, fmt.Errorf("missing credential message: %w", err)
		}
		blocks = append(blocks, slack.NewActionBlock("", button(ActionConfigure, "Configure", v)))
	}
	return Message{Text: s, Blocks: blocks}, nil
}

// trustLines says who may change channel connections and where threads
// may point: what a refused user needs to know.
func trustLines(t TrustView) string {
	return strings.Join([]string{
		"*Who may change where the bot connects*",
		"Channel URLs and credentials: " + shortList(t.Admins, func(m string) string { return m }, "_nobody_ (AUTOHEAL_ADMINS is empty)"),
		"Thread URLs may point at: " + shortList(t.AllowedHosts, codeEntry, "_only the configured backends_"),
		"Thread repositories: " + shortList(t.AllowedRepos, codeEntry, "_none_"),
	}, "\n")
}

func codeEntry(e string) string { return inlineCode(e, 80) }

// shortList renders at most trustEntriesShown entries, then a count.
func shortList(entries []string, show func(string) string, none string) string {
	if len(entries) == 0 {
		return none
	}
	var out []string
	for i, e := range entries {
		if i == trustEntriesShown {
			out = append(out, fmt.Sprintf("_… and %d more_", len(entries)-i))
			break
		}
		out = append(out, show(e))
	}
	return strings.Join(out, ", ")
}
