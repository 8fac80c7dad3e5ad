// Package render turns AutoHeal's investigation progress and results into
// Slack Block Kit payloads: the live progress message, the result with its
// confidence badge and approval buttons, alert root messages, the config and
// reject modals, status, help and ephemeral acknowledgements.
//
// Everything here is a pure function: no I/O, no clock (times are passed in),
// no randomness. Builders truncate with a visible marker ("…") instead of
// exceeding Slack's limits, and Validate / ValidateModal check a payload
// against those limits before the bot sends it. User-provided text is escaped
// for mrkdwn (&, <, >) so that it can neither break formatting nor ping
// @channel, and secrets are never rendered: secret config values appear only
// as config.Mask output.
package render
