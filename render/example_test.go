package render_test

import (
	"fmt"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/render"
)

// The bot renders a result, validates every payload, posts the main message
// in the thread and the follow-ups after it.
func ExampleResult() {
	r := &investigate.HealResult{
		Summary: "getAds dereferences a null request context",
		RootCause: investigate.RootCause{
			Description: "NullPointerException for requests without context keys",
			Service:     "ad", File: "src/ad/AdService.java", Line: 137,
			ErrorType: investigate.ErrNullPointer, Bucket: investigate.BucketCodeBug, Band: investigate.BandHigh,
		},
		Fix:  investigate.Fix{Summary: "Guard the context-key branch", Patch: &investigate.Patch{File: "src/ad/AdService.java", Diff: "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n"}},
		Repo: "acme/shop",
	}
	out, err := render.Result(r, render.ResultOptions{
		RepoWebURL: render.WebURLFromAPI(""), // github.com
		Approval:   render.ApprovalView{Eligible: true},
		Action:     render.ActionValue{Channel: "C0INCIDENT", ThreadTS: "1764497400.000900", JobID: "job-1"},
	})
	if err != nil {
		panic(err)
	}
	for _, m := range append([]render.Message{out.Main}, out.FollowUps...) {
		if err := render.Validate(m); err != nil {
			panic(err)
		}
		// client.PostMessage(channel, append(m.MsgOptions(), slack.MsgOptionTS(threadTS))...)
	}
	fmt.Println(out.Main.Text)
	// Output: Root cause (HIGH, code bug): getAds dereferences a null request context — NullPointerException for requests without context keys · src/ad/AdService.java:137
}

// A button click comes back with its value; decode it before trusting it.
func ExampleDecodeActionValue() {
	v, err := render.ActionValue{Channel: "C0INCIDENT", ThreadTS: "1764497400.000900", IssueKey: "ad-npe"}.Encode()
	if err != nil {
		panic(err)
	}
	got, err := render.DecodeActionValue(v)
	fmt.Println(got.Channel, got.ThreadTS, got.IssueKey, err)
	_, err = render.DecodeActionValue("v1:c=general&t=now")
	fmt.Println(err)
	// Output:
	// C0INCIDENT 1764497400.000900 ad-npe <nil>
	// invalid interaction value: channel "general" is not a Slack conversation ID
}
