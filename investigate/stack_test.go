package investigate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseStackTopAppFrame(t *testing.T) {
	cases := []struct {
		name, text, file string
		line             int
		hint             string
	}{
		{"java", "java.lang.NullPointerException: x\n\tat java.util.Objects.requireNonNull(Objects.java:209)\n\tat com.acme.shop.ad.AdService$AdServiceImpl.resolveCategories(AdService.java:137)\n\tat io.grpc.stub.ServerCalls.invoke(ServerCalls.java:182)",
			"AdService.java", 137, "com/acme/shop/ad/AdService.java"},
		{"go panic", "panic: runtime error\ngoroutine 1 [running]:\nnet/http.(*conn).serve.func1()\n\t/usr/local/go/src/net/http/server.go:1947 +0xbe\ngithub.com/x/dispatch/internal/match.score(...)\n\t/app/internal/match/rank.go:33\n",
			"/app/internal/match/rank.go", 33, "internal/match/rank.go"},
		{"python", "Traceback (most recent call last):\n  File \"/usr/local/lib/python3.11/site-packages/celery/app/trace.py\", line 451, in trace_task\n  File \"/app/transcode/probe.py\", line 27, in rotation\nAttributeError: 'NoneType' object has no attribute 'get'",
			"/app/transcode/probe.py", 27, "transcode/probe.py"},
		{"node", "TypeError: Cannot read properties of undefined (reading 'units')\n    at buildLineItems (/usr/src/app/charge.js:58:76)\n    at charge (/usr/src/app/charge.js:70:17)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
			"/usr/src/app/charge.js", 58, "charge.js"},
		{"dotnet", "System.NullReferenceException: Object reference not set\n   at Billing.Api.Pricing.DiscountCalculator.Apply(Invoice invoice) in /src/Billing.Api/Pricing/DiscountCalculator.cs:line 27\n   at Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke(HttpContext ctx)",
			"/src/Billing.Api/Pricing/DiscountCalculator.cs", 27, "Billing.Api/Pricing/DiscountCalculator.cs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			top, ok := TopAppFrame(ParseStack(tc.text))
			require.True(t, ok)
			assert.Equal(t, tc.file, top.File)
			assert.Equal(t, tc.line, top.Line)
			assert.Equal(t, tc.hint, PathHint(top))
		})
	}
}

func TestLibraryFramesAreNotAnchors(t *testing.T) {
	for _, f := range []Frame{
		{File: "/app/node_modules/@grpc/grpc-js/build/src/call.js", Line: 32},
		{File: "/app/.next/server/chunks/973.js", Line: 1},
		{File: "internal/process/task_queues.js", Line: 95},
		{File: "/usr/local/go/src/runtime/panic.go", Line: 785},
		{File: "Objects.java", Line: 209, Module: "java.util"},
		{File: "/usr/local/lib/python3.11/site-packages/flask/app.py", Line: 880},
	} {
		assert.True(t, IsLibraryFrame(f), f.File)
	}
	assert.False(t, IsLibraryFrame(Frame{File: "/app/internal/match/rank.go", Line: 33, Function: "github.com/x/dispatch/internal/match.score"}))
}

func TestResolveRepoPath(t *testing.T) {
	paths := []string{"src/checkout/main.go", "src/cart/main.go", "src/payment/charge.js", "src/payment/test/charge.js",
		"src/ad/src/main/java/com/acme/shop/ad/AdService.java", "tools/AdService.java"}
	cases := []struct{ file, service, want string }{
		{"charge.js", "payment", "src/payment/charge.js"},
		{"/app/main.go", "cart", "src/cart/main.go"},
		{"/app/main.go", "checkout", "src/checkout/main.go"},
		{"com/acme/shop/ad/AdService.java", "ad", "src/ad/src/main/java/com/acme/shop/ad/AdService.java"},
	}
	for _, tc := range cases {
		got, _, ok := ResolveRepoPath(paths, tc.file, tc.service)
		require.True(t, ok, tc.file)
		assert.Equal(t, tc.want, got, tc.file)
	}
	_, _, ok := ResolveRepoPath(paths, "Missing.java", "ad")
	assert.False(t, ok)
}

func TestElixirFrames(t *testing.T) {
	text := `** (MatchError) no match of right hand side value: {:error, {:already_started, #PID<0.48888.0>}}
        (bidhall 1.14.2) lib/bidhall/auctions/lots.ex:21: Bidhall.Auctions.Lots.ensure_started/1
        (phoenix 1.7.14) lib/phoenix/router.ex:484: Phoenix.Router.__call__/5`
	fs := ParseStack(text)
	if assert.Len(t, fs, 2) {
		assert.Equal(t, Frame{File: "lib/bidhall/auctions/lots.ex", Line: 21, Function: "Bidhall.Auctions.Lots.ensure_started/1", Module: "bidhall"}, fs[0])
		assert.True(t, IsLibraryFrame(fs[1]), "Phoenix's own frames")
	}
	top, ok := TopAppFrame(fs)
	assert.True(t, ok)
	assert.Equal(t, 21, top.Line)
	assert.Equal(t, "Bidhall.Auctions.Lots.ensure_started/1", shortFunc(top.Function))
	assert.Equal(t, "already-started-race", Best(text).ID)
}

func TestRailsGemFramesAreLibraryFrames(t *testing.T) {
	text := "Aws::S3::Errors::NoSuchKey (The specified key does not exist.):\n" +
		"  aws-sdk-core (3.201.3) lib/seahorse/client/plugins/raise_response_errors.rb:17:in `call'\n" +
		"  activestorage (7.2.1) lib/active_storage/service/s3_service.rb:160:in `stream'\n" +
		"  app/controllers/api/attachments_controller.rb:14:in `show'"
	frames := ParseStack(text)
	require.Len(t, frames, 3)
	assert.True(t, IsLibraryFrame(frames[0]))
	assert.True(t, IsLibraryFrame(frames[1]))
	top, ok := TopAppFrame(frames)
	require.True(t, ok)
	assert.Equal(t, "app/controllers/api/attachments_controller.rb", top.File)
	assert.Equal(t, 14, top.Line)
	c := &candidate{Support: []Finding{{Quote: text, Frames: frames}}}
	assert.True(t, c.answeredByRemote(), "the S3 SDK raised what S3 answered")
}
