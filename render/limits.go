package render

// Slack Block Kit and Web API limits. Sources (checked against Slack's
// reference documentation on docs.slack.dev):
//
//   - blocks:            https://docs.slack.dev/reference/block-kit/blocks
//     "up to 50 blocks in each message, and 100 blocks in modals or Home tabs"
//   - section block:     https://docs.slack.dev/reference/block-kit/blocks/section-block
//     text ≤ 3000; fields ≤ 10 items of ≤ 2000; block_id ≤ 255
//   - header block:      https://docs.slack.dev/reference/block-kit/blocks/header-block
//     plain_text ≤ 150
//   - context block:     https://docs.slack.dev/reference/block-kit/blocks/context-block
//     ≤ 10 elements
//   - actions block:     https://docs.slack.dev/reference/block-kit/blocks/actions-block
//     ≤ 25 elements
//   - button element:    https://docs.slack.dev/reference/block-kit/block-elements/button-element
//     text ≤ 75, action_id ≤ 255, url ≤ 3000, value ≤ 2000
//   - confirm object:    https://docs.slack.dev/reference/block-kit/composition-objects/confirmation-dialog-object
//     title ≤ 100, text ≤ 300, confirm/deny ≤ 30
//   - modal views:       https://docs.slack.dev/reference/views/modal-views
//     title/submit/close ≤ 24, ≤ 100 blocks, private_metadata ≤ 3000, callback_id ≤ 255
//   - input block:       https://docs.slack.dev/reference/block-kit/blocks/input-block
//     label ≤ 2000, hint ≤ 2000
//   - plain_text_input:  https://docs.slack.dev/reference/block-kit/block-elements/plain-text-input-element
//     placeholder ≤ 150, max_length 1..3000
//   - chat.postMessage:  https://docs.slack.dev/reference/methods/chat.postMessage
//     top-level text is truncated beyond 40,000 characters; 4,000 is the
//     recommended ceiling for the notification fallback.
//   - formatting:        https://docs.slack.dev/messaging/formatting-message-text#escaping
//     &, < and > are control characters and must be sent as &amp; &lt; &gt;
//
// Lengths are counted in UTF-16 code units, which is never less than the
// number of characters Slack counts, so a payload that passes here is not
// rejected for length there.
const (
	MaxMessageBlocks    = 50
	MaxModalBlocks      = 100
	MaxSectionText      = 3000
	MaxSectionFields    = 10
	MaxSectionFieldText = 2000
	MaxHeaderText       = 150
	MaxContextElements  = 10
	MaxContextText      = 3000 // a text object in a context block; Slack caps text objects at 3000
	MaxActionsElements  = 25
	MaxButtonText       = 75
	MaxButtonValue      = 2000
	MaxURL              = 3000
	MaxActionID         = 255
	MaxBlockID          = 255
	MaxConfirmTitle     = 100
	MaxConfirmText      = 300
	MaxConfirmButton    = 30
	MaxMessageText      = 40000
	MaxFallbackText     = 4000
	MaxModalTitle       = 24
	MaxModalButton      = 24
	MaxPrivateMetadata  = 3000
	MaxCallbackID       = 255
	MaxInputLabel       = 2000
	MaxInputHint        = 2000
	MaxPlaceholder      = 150
	MaxInputValue       = 3000

	// MaxBlocksText caps the sum of all text in one message's blocks. Slack
	// rejects messages whose blocks are too long in total with
	// msg_blocks_too_long even when every block is within its own limit; the
	// threshold is undocumented and was observed between roughly 11,000 and
	// 13,000 characters (slackapi/bolt-js#2509, #2867). 10,000 keeps a margin.
	MaxBlocksText = 10000
)

// Budgets the builders keep to; each is at or below the matching Slack limit.
const (
	// UploadThreshold is the diff size (bytes) above which a patch is handed
	// over as a file upload rather than split into code-block messages.
	UploadThreshold = 24 * 1024
	// MaxUploadBytes caps an upload's content; anything larger is truncated
	// with a marker line.
	MaxUploadBytes = 4 << 20
	// MaxFollowUps caps the number of follow-up messages one result produces.
	MaxFollowUps = 12
	// sectionBudget leaves room under MaxSectionText for a trailing marker.
	sectionBudget = 2900
	// followUpBlocksText is the text budget of one follow-up message.
	followUpBlocksText = 9000
)
