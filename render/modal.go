package render

import (
	"fmt"
	"strings"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/config"
)

// Source says where a setting's current value comes from.
type Source string

const (
	SourceThread  Source = "thread"
	SourceChannel Source = "channel"
	SourceEnv     Source = "environment"
	SourceDefault Source = "default"
)

// Setting is the current value of one config key and its origin.
type Setting struct {
	Value  string
	Source Source
}

// Settings maps config key names to their current values.
type Settings map[string]Setting

// Config groups, in display order.
var configGroups = []string{"Repository", "Traces", "Logs", "Metrics", "GitHub", "Kubernetes", "Other"}

// keyGroup places a config key in a group; unknown future keys fall back on
// their prefix, then on "Other".
func keyGroup(name string) string {
	switch name {
	case "repo", "ref", "service_name":
		return "Repository"
	case "namespace":
		return "Kubernetes"
	case "log_service_label":
		return "Logs"
	}
	switch {
	case strings.HasPrefix(name, "jaeger_"):
		return "Traces"
	case strings.HasPrefix(name, "loki_"):
		return "Logs"
	case strings.HasPrefix(name, "prometheus_"):
		return "Metrics"
	case strings.HasPrefix(name, "github_"):
		return "GitHub"
	case strings.HasPrefix(name, "k8s_"):
		return "Kubernetes"
	}
	return "Other"
}

// Block and action IDs of the modals' inputs.
const (
	configBlockPrefix = "cfg_"
	rejectBlockID     = "reject_reason"
	rejectActionID    = "reason"
	maxRejectReason   = 1000
)

// ConfigBlockID is the block_id of a key's input in the config modal; a
// view_submission error response addresses inputs by it.
func ConfigBlockID(key string) string { return configBlockPrefix + key }

// hasCredentials reports whether a URL value carries credentials (userinfo
// or a token-like query parameter), which must not be echoed even though the
// key itself is not secret.
func hasCredentials(v string) bool {
	return redactURL(v) != strings.TrimSpace(v)
}

// ConfigModal builds the views.open payload of the Configure button: one
// optional input per config key, grouped. Secret values are never sent back
// to Slack: their inputs only say whether a value is set.
func ConfigModal(current Settings, meta Meta) (slack.ModalViewRequest, error) {
	pm, err := EncodeMeta(meta)
	if err != nil {
		return slack.ModalViewRequest{}, fmt.Errorf("config modal: %w", err)
	}
	byGroup := map[string][]config.Key{}
	for _, k := range config.Keys {
		g := keyGroup(k.Name)
		byGroup[g] = append(byGroup[g], k)
	}
	blocks := []slack.Block{
		contextBlock("Settings apply to this thread. Leave a field empty to keep its current value. Secrets are stored encrypted and never shown."),
	}
	omitted := 0
	for _, g := range configGroups {
		keys := byGroup[g]
		if len(keys) == 0 {
			continue
		}
		// Room for the group header, its inputs and a closing note.
		if len(blocks)+2 > MaxModalBlocks-1 {
			omitted += len(keys)
			continue
		}
		blocks = append(blocks, header(g))
		for _, k := range keys {
			if len(blocks) >= MaxModalBlocks-1 {
				omitted++
				continue
			}
			blocks = append(blocks, configInput(k, current[k.Name]))
		}
	}
	if omitted > 0 {
		blocks = append(blocks, contextBlock(fmt.Sprintf("%s more: set them with `/autoheal config key=value`.", plural(omitted, "setting", "settings"))))
	}
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		Title:           plainText("AutoHeal settings"),
		Submit:          plainText("Save"),
		Close:           plainText("Cancel"),
		Blocks:          slack.Blocks{BlockSet: blocks},
		PrivateMetadata: pm,
		CallbackID:      CallbackConfig,
	}, nil
}

func configInput(k config.Key, cur Setting) *slack.InputBlock {
	set := strings.TrimSpace(cur.Value) != ""
	el := slack.NewPlainTextInputBlockElement(nil, k.Name).WithMaxLength(MaxInputValue)
	hint := oneLine(k.Help)
	switch {
	case k.Secret && set:
		el.Placeholder = plainText("set — leave empty to keep")
	case k.Secret:
		el.Placeholder = plainText("not set")
	case set && hasCredentials(cur.Value):
		el.Placeholder = plainText("set (contains credentials) — leave empty to keep")
	case set && textLen(cur.Value) <= MaxInputValue:
		el.InitialValue = cur.Value
	default:
		el.Placeholder = plainText("not set")
	}
	if set && cur.Source != "" {
		hint = joinNonEmpty(" · ", hint, "current value from "+string(cur.Source))
	}
	if k.Secret {
		hint = joinNonEmpty(" · ", hint, "secret")
	}
	var hintObj *slack.TextBlockObject
	if hint != "" {
		hintObj = plainText(truncate(hint, MaxInputHint))
	}
	return slack.NewInputBlock(ConfigBlockID(k.Name), plainText(truncate(k.Name, MaxInputLabel)), hintObj, el).WithOptional(true)
}

// ConfigSubmission is a parsed config modal submission.
type ConfigSubmission struct {
	// Values holds the keys to save: non-empty, changed and valid.
	Values map[string]string
	// Errors maps block_id to a message for a view_submission response
	// {"response_action":"errors","errors":…}. Messages never contain values.
	Errors map[string]string
}

// ParseConfigSubmission reads a submitted config view's state.values. Only
// known keys are read; empty fields and values equal to the current ones are
// skipped (pre-filled fields come back unchanged); each value is checked
// with config.Check.
func ParseConfigSubmission(state *slack.ViewState, current Settings) ConfigSubmission {
	sub := ConfigSubmission{Values: map[string]string{}, Errors: map[string]string{}}
	if state == nil {
		return sub
	}
	for _, k := range config.Keys {
		bid := ConfigBlockID(k.Name)
		act, ok := state.Values[bid][k.Name]
		if !ok {
			continue
		}
		v := strings.TrimSpace(act.Value)
		if v == "" {
			continue
		}
		if textLen(v) > MaxInputValue {
			sub.Errors[bid] = fmt.Sprintf("too long (limit %d characters)", MaxInputValue)
			continue
		}
		if cur, ok := current[k.Name]; ok && cur.Value == v {
			continue
		}
		name, err := config.Check(k.Name, v)
		if err != nil {
			sub.Errors[bid] = err.Error()
			continue
		}
		sub.Values[name] = v
	}
	return sub
}

// RejectModal asks why a proposed fix is rejected.
func RejectModal(meta Meta) (slack.ModalViewRequest, error) {
	pm, err := EncodeMeta(meta)
	if err != nil {
		return slack.ModalViewRequest{}, fmt.Errorf("reject modal: %w", err)
	}
	el := slack.NewPlainTextInputBlockElement(plainText("e.g. the null check hides the real bug: the context keys are never set"), rejectActionID).
		WithMultiline(true).WithMaxLength(maxRejectReason)
	el.FocusOnLoad = true
	input := slack.NewInputBlock(rejectBlockID, plainText("Why is this fix wrong?"),
		plainText("Shown in the thread and kept with the incident."), el)
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		Title:           plainText("Reject fix"),
		Submit:          plainText("Reject"),
		Close:           plainText("Cancel"),
		Blocks:          slack.Blocks{BlockSet: []slack.Block{input}},
		PrivateMetadata: pm,
		CallbackID:      CallbackRejectReason,
	}, nil
}

// ParseRejectReason reads the reason from a submitted reject modal.
func ParseRejectReason(state *slack.ViewState) (string, error) {
	if state == nil {
		return "", fmt.Errorf("%w: reject modal: no state", ErrInvalidValue)
	}
	act, ok := state.Values[rejectBlockID][rejectActionID]
	if !ok {
		return "", fmt.Errorf("%w: reject modal: no reason field", ErrInvalidValue)
	}
	reason := strings.TrimSpace(clean(act.Value))
	if reason == "" {
		return "", fmt.Errorf("%w: reject modal: reason is empty", ErrInvalidValue)
	}
	if n := textLen(reason); n > maxRejectReason {
		return "", fmt.Errorf("%w: reject modal: reason is %d characters, limit %d", ErrInvalidValue, n, maxRejectReason)
	}
	return reason, nil
}
