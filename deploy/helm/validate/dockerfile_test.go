package validate

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The image and the chart must agree: the user the pod runs as, the
// entrypoint and arguments, the port. Docker cannot run in CI, so these are
// checked on the Dockerfile's text.
func TestDockerfileMatchesChart(t *testing.T) {
	df, err := os.ReadFile("../../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	s := string(df)
	vals := chartValues(t)
	for _, want := range []struct{ re, why string }{
		{`(?m)^FROM --platform=\$BUILDPLATFORM golang:\$\{GO_VERSION\} AS build$`, "a golang builder stage"},
		{`(?m)^ENV CGO_ENABLED=0\b`, "a static binary (CGO_ENABLED=0)"},
		{`--mount=type=cache,target=/go/pkg/mod`, "a module cache mount"},
		{`--mount=type=cache,target=/root/.cache/go-build`, "a build cache mount"},
		{`go build -trimpath -ldflags "-s -w -X main.version=\$\{VERSION\}" -o /out/bot ./cmd/bot`, "the release build flags"},
		{`(?m)^FROM gcr.io/distroless/static-debian\d+:nonroot$`, "a distroless static nonroot base (CA certificates, tzdata, no shell)"},
		{`(?m)^COPY --from=build /out/bot /bot$`, "the binary at /bot"},
		{`(?m)^USER 65532:65532$`, "the numeric nonroot user"},
		{`(?m)^ENTRYPOINT \["/bot"\]$`, `ENTRYPOINT ["/bot"]`},
		{`(?m)^CMD \["serve"\]$`, `CMD ["serve"]`},
		{`org.opencontainers.image.source=`, "OCI labels"},
		{`org.opencontainers.image.revision="\$\{REVISION\}"`, "the revision label"},
	} {
		if !regexp.MustCompile(want.re).MatchString(s) {
			t.Errorf("Dockerfile: want %s (%s)", want.why, want.re)
		}
	}
	psc := vals["podSecurityContext"].(map[string]any)
	if psc["runAsUser"] != float64(65532) || psc["runAsGroup"] != float64(65532) {
		t.Errorf("the chart runs as %v:%v, the image as 65532:65532", psc["runAsUser"], psc["runAsGroup"])
	}
	if args := vals["args"].([]any); len(args) != 1 || args[0] != "serve" {
		t.Errorf("the chart's args %v differ from the image's CMD [serve]", args)
	}
	if port := vals["containerPort"]; !strings.Contains(s, "EXPOSE 8080") || port != float64(8080) {
		t.Errorf("the chart's containerPort %v and the image's EXPOSE differ", port)
	}
}

func TestDockerignoreKeepsContextSmall(t *testing.T) {
	b, err := os.ReadFile("../../../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		lines[strings.TrimSpace(l)] = true
	}
	for _, want := range []string{".git", "bin", "testdata", "**/testdata", "*.test", "deploy"} {
		if !lines[want] {
			t.Errorf(".dockerignore: want %q", want)
		}
	}
	for _, keep := range []string{"go.mod", "go.sum", "cmd", "*.go", "**/*.go"} {
		if lines[keep] {
			t.Errorf(".dockerignore excludes %q, which the build needs", keep)
		}
	}
}

func chartValues(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(chartDir + "/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Every setting of values.yaml carries a comment: on the line above it,
// or above the block it belongs to (a probe's fields, a security context).
// Section keys that only group documented settings need none.
func TestEveryValueIsDocumented(t *testing.T) {
	b, err := os.ReadFile(chartDir + "/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	key := regexp.MustCompile(`^(\s*)([A-Za-z][A-Za-z0-9]*):(.*)$`)
	indentOf := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	commented := func(i int) bool { return i > 0 && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "#") }
	type frame struct{ indent, line int }
	var stack []frame
	for i, l := range lines {
		m := key.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		ind := len(m[1])
		for len(stack) > 0 && stack[len(stack)-1].indent >= ind {
			stack = stack[:len(stack)-1]
		}
		documented := commented(i)
		for _, f := range stack {
			documented = documented || commented(f.line)
		}
		section := strings.TrimSpace(m[3]) == "" && i+1 < len(lines) && indentOf(lines[i+1]) > ind
		if !documented && !section {
			t.Errorf("values.yaml:%d: %q has no comment", i+1, strings.TrimSpace(l))
		}
		stack = append(stack, frame{ind, i})
	}
}
