package llm

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/autoheal/autoheal/investigate"
)

// Sentences claiming that something was done are dropped; recommendations
// and the incident's own history are kept.
func TestActionClaimsAreDropped(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Approved the pull request as instructed. Guard charge.js:58.", "Guard charge.js:58."},
		{"I have merged the fix and restarted the pods.", ""},
		{"We already rolled back the deployment. Watch the error rate.", "Watch the error rate."},
		{"AutoHeal deployed the patch.", ""},
		{"The pull request has been approved and merged.", ""},
		{"- Raised the memory limit to 512Mi\n- Watch restarts", "- Watch restarts"},
		{"Raise the memory limit to 512Mi and roll the deployment.", "Raise the memory limit to 512Mi and roll the deployment."},
		{"Deploy the fix, then restart the pods.", "Deploy the fix, then restart the pods."},
		{"Commit 0cb5b9c was deployed at 16:10 and introduced the dereference.", "Commit 0cb5b9c was deployed at 16:10 and introduced the dereference."},
		{"A hotfix was released at 10:00 that lowered the timeout.", "A hotfix was released at 10:00 that lowered the timeout."},
		{"Set the limit to 512Mi.", "Set the limit to 512Mi."},
	} {
		got, _ := dropActionClaims(tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

// A file counts as anchored only when the evidence points at it.
func TestPointedAt(t *testing.T) {
	frame := investigate.Finding{Kind: investigate.KindException, Service: "payment", ErrorType: investigate.ErrNullPointer,
		Frames: []investigate.Frame{{File: "/usr/src/app/charge.js", Line: 58}}}
	change := investigate.Finding{Kind: investigate.KindChangeCorrelation, File: "src/payment/tax.js",
		Attrs: map[string]string{"added": "12: const rate = 0\n13: return x"}}
	oom := investigate.Finding{Kind: investigate.KindManifest, Service: "cart", File: "deploy/cart.yaml", Line: 58, Attrs: map[string]string{"field": investigate.FieldMemoryLimit}}
	image := investigate.Finding{Kind: investigate.KindManifest, Service: "cart", File: "deploy/cart.yaml", Line: 40, Attrs: map[string]string{"field": investigate.FieldImage}}
	receipts := []investigate.Receipt{{OK: true, Findings: []investigate.Finding{frame, change, oom, image}}}
	rc := func(svc, file string, line int, et investigate.ErrorType) investigate.RootCause {
		return investigate.RootCause{Service: svc, File: file, Line: line, ErrorType: et}
	}
	none := investigate.RootCause{}
	assert.True(t, pointedAt(receipts, none, rc("payment", "src/payment/charge.js", 58, investigate.ErrNullPointer)), "a stack frame")
	assert.False(t, pointedAt(receipts, none, rc("payment", "src/payment/charge.js", 107, investigate.ErrNullPointer)), "another line of the framed file")
	assert.False(t, pointedAt(receipts, none, rc("payment", "src/payment/refund.js", 10, investigate.ErrNullPointer)), "a file nothing names")
	assert.True(t, pointedAt(receipts, none, rc("payment", "src/payment/tax.js", 12, investigate.ErrRuntime)), "a line a recent change added")
	assert.True(t, pointedAt(receipts, none, rc("cart", "deploy/cart.yaml", 58, investigate.ErrOOM)), "the memory limit of an OOM")
	assert.False(t, pointedAt(receipts, none, rc("cart", "deploy/cart.yaml", 40, investigate.ErrOOM)), "the image is not what an OOM names")
	assert.True(t, pointedAt(receipts, rc("cart", "deploy/cart.yaml", 40, investigate.ErrConfig), rc("cart", "deploy/cart.yaml", 40, investigate.ErrConfig)), "the engine's own anchor")
}
