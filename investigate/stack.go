package investigate

import (
	"path"
	"regexp"
	"strconv"
	"strings"
)

// Stack-frame formats of the runtimes AutoHeal reads. Each regexp captures
// the function, the file and the line (Node also the column).
var (
	// at com.acme.Foo$Bar.baz(Foo.java:155)   /   at Foo.bar(Foo.kt:12)
	javaFrameRE = regexp.MustCompile(`at\s+([\w$.<>/]+)\.([\w$<>]+)\(([\w$.-]+\.(?:java|kt|scala|groovy)):(\d+)\)`)
	// at Ns.Class.Method(Args) in /src/Svc/File.cs:line 42
	dotnetFrameRE = regexp.MustCompile(`at\s+([\w.<>` + "`" + `+\[\], ]+?)\(([^)]*)\)\s+in\s+(\S+?\.(?:cs|fs|vb)):line\s+(\d+)`)
	// File "/app/x.py", line 45, in handler
	pythonFrameRE = regexp.MustCompile(`File "([^"]+\.py)", line (\d+)(?:, in ([\w<>.]+))?`)
	// at fn (/usr/src/app/x.js:37:13)  /  at /usr/src/app/x.js:37:13  /  at async fn (file:///app/x.mjs:3:9)
	nodeFrameRE = regexp.MustCompile(`at\s+(?:(?:async\s+|new\s+)?([\w$.<>\[\]]+)\s+\()?(?:file://)?([^\s()]+?\.(?:js|mjs|cjs|ts|tsx|jsx)):(\d+)(?::(\d+))?\)?`)
	// Go: "main.(*Server).Charge(...)" on one line, "\t/app/charge.go:88 +0x1d" on the next.
	goFuncRE  = regexp.MustCompile(`(?m)^\s*([\w./-]+(?:\.\(\*?[\w]+\))?\.[\w.]+)\(.*\)\s*$`)
	goFrameRE = regexp.MustCompile(`(?m)^\s*(/[^\s:]+\.go|[\w./-]+\.go):(\d+)(?:\s+\+0x[0-9a-f]+)?\s*$`)
	// Ruby: /app/app/models/order.rb:42:in `total'
	// Rails' backtrace cleaner prefixes a gem's frames with the gem:
	// "aws-sdk-core (3.201.3) lib/seahorse/client/.../raise_response_errors.rb:17:in `call'".
	rubyFrameRE = regexp.MustCompile("(?:([\\w.-]+) \\(\\d[\\w.]*\\) )?([\\w./-]+\\.rb):(\\d+):in [\x60'\"]([^'\"\x60]+)['\"\x60]?")
	// PHP: #0 /var/www/src/Cart.php(57): App\Cart->total()  /  in /var/www/src/Cart.php on line 57  /  /var/www/src/Cart.php:57
	phpFrameRE = regexp.MustCompile(`([\w./-]+\.php)(?:\((\d+)\)|:(\d+)| on line (\d+)| line (\d+))`)
	// Rust: panicked at src/handlers/checkout.rs:57:31  /  at src/main.rs:42:17
	rustFrameRE = regexp.MustCompile(`(?:panicked at |at )'?([\w./-]+\.rs):(\d+)(?::\d+)?`)
	// Elixir: "(bidhall 1.14.2) lib/bidhall/auctions/lots.ex:21: Bidhall.Auctions.Lots.ensure_started/1".
	elixirFrameRE = regexp.MustCompile(`\((\w+) [\w.+-]+\) ([\w./-]+\.exs?):(\d+): ([\w.!?]+/\d+)`)
	// Generic path:line mentions in one-line errors: "at /app/main.go:88", "handler.go:57:".
	genericFileLineRE = regexp.MustCompile(`((?:/|\b)[\w./-]*\w\.(?:go|java|py|js|ts|cs|rb|kt|php|rs|scala|mjs|cjs|tsx)):(\d+)`)
)

// ParseStack extracts frames, innermost (where the error was raised) first,
// from a stack trace in any of the supported formats.
func ParseStack(text string) []Frame {
	if text == "" {
		return nil
	}
	text = strings.ReplaceAll(text, `\n`, "\n")
	text = strings.ReplaceAll(text, `\t`, "\t")
	var frames []Frame
	switch {
	case javaFrameRE.MatchString(text):
		for _, m := range javaFrameRE.FindAllStringSubmatch(text, 64) {
			line, _ := strconv.Atoi(m[4])
			class := m[1]
			module := ""
			if i := strings.LastIndex(class, "."); i > 0 {
				module = class[:i]
			}
			frames = append(frames, Frame{File: m[3], Line: line, Function: class + "." + m[2], Module: module})
		}
	case dotnetFrameRE.MatchString(text):
		for _, m := range dotnetFrameRE.FindAllStringSubmatch(text, 64) {
			line, _ := strconv.Atoi(m[4])
			frames = append(frames, Frame{File: m[3], Line: line, Function: strings.TrimSpace(m[1])})
		}
	case pythonFrameRE.MatchString(text):
		ms := pythonFrameRE.FindAllStringSubmatch(text, 64)
		// Python prints the innermost frame last.
		for i := len(ms) - 1; i >= 0; i-- {
			line, _ := strconv.Atoi(ms[i][2])
			frames = append(frames, Frame{File: ms[i][1], Line: line, Function: ms[i][3]})
		}
	case goFrameRE.MatchString(text):
		frames = parseGoStack(text)
	case rubyFrameRE.MatchString(text):
		for _, m := range rubyFrameRE.FindAllStringSubmatch(text, 64) {
			line, _ := strconv.Atoi(m[3])
			f := Frame{File: m[2], Line: line, Function: m[4]}
			if m[1] != "" {
				f.Module = rubyGemModule + m[1] // a gem's frame, not the application's
			}
			frames = append(frames, f)
		}
	case phpFrameRE.MatchString(text):
		for _, m := range phpFrameRE.FindAllStringSubmatch(text, 64) {
			line, _ := strconv.Atoi(m[2] + m[3] + m[4] + m[5])
			frames = append(frames, Frame{File: m[1], Line: line})
		}
	case elixirFrameRE.MatchString(text):
		for _, m := range elixirFrameRE.FindAllStringSubmatch(text, 64) {
			line, _ := strconv.Atoi(m[3])
			frames = append(frames, Frame{File: m[2], Line: line, Function: m[4], Module: m[1]})
		}
	case rustFrameRE.MatchString(text):
		for _, m := range rustFrameRE.FindAllStringSubmatch(text, 64) {
			line, _ := strconv.Atoi(m[2])
			frames = append(frames, Frame{File: m[1], Line: line})
		}
	case nodeFrameRE.MatchString(text):
		for _, m := range nodeFrameRE.FindAllStringSubmatch(text, 64) {
			line, _ := strconv.Atoi(m[3])
			frames = append(frames, Frame{File: m[2], Line: line, Function: strings.TrimSpace(m[1])})
		}
	}
	if len(frames) == 0 {
		for _, m := range genericFileLineRE.FindAllStringSubmatch(text, 16) {
			line, _ := strconv.Atoi(m[2])
			if line > 0 {
				frames = append(frames, Frame{File: m[1], Line: line})
			}
		}
	}
	return frames
}

// parseGoStack pairs "func(args)" lines with the "\tfile.go:line" lines that
// follow them, as Go prints panics and debug.Stack().
func parseGoStack(text string) []Frame {
	lines := strings.Split(text, "\n")
	var frames []Frame
	for i, l := range lines {
		m := goFrameRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		f := Frame{File: m[1], Line: line}
		if i > 0 {
			if fm := goFuncRE.FindStringSubmatch(lines[i-1]); fm != nil {
				f.Function = fm[1]
			}
		}
		frames = append(frames, f)
	}
	return frames
}

// rubyGemModule marks the module of a frame Rails printed with its gem.
const rubyGemModule = "gem:"

// libraryMarkers identify frames of runtimes, frameworks and dependencies:
// they say where an error surfaced, not where the defect is.
var libraryPathMarkers = []string{
	"node_modules/", "node:internal", "<anonymous>", "/site-packages/", "/dist-packages/",
	"/usr/lib/python", "/usr/local/lib/python", "/usr/local/go/", "/go/pkg/mod/", "/vendor/",
	"/root/go/pkg/", "GOROOT", "/opt/hostedtoolcache/", "/usr/share/dotnet/", "/_/src/", "/lib/python",
	"/gems/", "/vendor/bundle/", "/.cargo/registry/", "/rustc/", "/vendor/composer/", "/usr/share/php/",
	// Bundled / generated output: not a repository path.
	"/.next/", "/chunks/", ".min.js", "webpack", "/.nuxt/", "/__pycache__/",
}

var libraryModulePrefixes = []string{
	"java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.", "kotlinx.", "scala.", "io.grpc.", "io.netty.",
	"org.springframework.", "org.apache.", "com.fasterxml.", "org.hibernate.", "com.zaxxer.", "reactor.",
	"io.micrometer.", "org.eclipse.", "io.opentelemetry.", "io.undertow.", "okhttp3.", "com.google.",
	"org.slf4j.", "ch.qos.", "org.junit.", "io.vertx.", "io.quarkus.", "com.mysql.", "org.postgresql.",
	"System.", "Microsoft.", "Npgsql.", "Grpc.", "Newtonsoft.", "StackExchange.",
	"org.redisson.", "io.lettuce.", "redis.clients.", "org.mongodb.", "com.mongodb.", "software.amazon.", "com.amazonaws.",
	"io.ktor.", "akka.", "org.apache.pekko.", "com.datastax.", "org.jooq.", "feign.", "retrofit2.", "io.github.resilience4j.",
}

var goLibraryFuncPrefixes = []string{
	"runtime.", "net/http.", "net.", "google.golang.org/", "github.com/grpc-ecosystem/", "database/sql.",
	"sync.", "reflect.", "encoding/", "go.opentelemetry.io/", "github.com/gin-gonic/", "github.com/labstack/",
	"github.com/jackc/", "github.com/lib/pq", "github.com/redis/", "golang.org/",
}

// IsLibraryFrame reports whether a frame belongs to a runtime, framework or dependency.
func IsLibraryFrame(f Frame) bool {
	if (strings.HasSuffix(f.File, ".ex") || strings.HasSuffix(f.File, ".exs") || strings.HasSuffix(f.File, ".erl")) && elixirLibraryApps[f.Module] {
		return true // Elixir frames name their OTP application
	}
	for _, m := range libraryPathMarkers {
		if strings.Contains(f.File, m) {
			return true
		}
	}
	// Node's own modules print as "internal/process/task_queues.js"; Go's
	// standard library as "runtime/panic.go" without a GOROOT prefix.
	for _, p := range []string{"internal/", "runtime/", "node:", "events.js", "timers.js", "net.js"} {
		if strings.HasPrefix(f.File, p) {
			return true
		}
	}
	if strings.HasPrefix(f.Module, rubyGemModule) {
		return true
	}
	name := f.Function
	if f.Module != "" {
		name = f.Module + "."
	}
	for _, p := range libraryModulePrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	if strings.HasSuffix(f.File, ".go") {
		for _, p := range goLibraryFuncPrefixes {
			if strings.HasPrefix(f.Function, p) {
				return true
			}
		}
	}
	return false
}

// AppFrames returns the frames that belong to the application, innermost first.
func AppFrames(frames []Frame) []Frame {
	var out []Frame
	for _, f := range frames {
		if !IsLibraryFrame(f) && f.Line > 0 {
			out = append(out, f)
		}
	}
	return out
}

// TopAppFrame returns the innermost application frame, if any.
func TopAppFrame(frames []Frame) (Frame, bool) {
	// A Go stack printed by a recover handler (debug.Stack) lists the
	// handler first; the panic happened in the frames below "panic(".
	for i := len(frames) - 1; i >= 0; i-- {
		if fn := frames[i].Function; fn == "panic" || fn == "runtime.gopanic" || strings.HasSuffix(fn, ".gopanic") || strings.HasSuffix(frames[i].File, "runtime/panic.go") {
			frames = frames[i+1:]
			break
		}
	}
	app := AppFrames(frames)
	if len(app) == 0 {
		return Frame{}, false
	}
	return app[0], true
}

// PathHint returns the repository path suffix a frame implies: for Java the
// package path plus the file name (com/acme/shop/ad/AdService.java), for
// everything else the runtime path with well-known deployment prefixes
// stripped (/usr/src/app/charge.js -> charge.js).
func PathHint(f Frame) string {
	file := strings.ReplaceAll(f.File, `\`, "/")
	if strings.HasSuffix(file, ".java") || strings.HasSuffix(file, ".kt") || strings.HasSuffix(file, ".scala") {
		if f.Module != "" && !strings.Contains(file, "/") {
			pkg := f.Module
			// Drop nested class and method parts: keep lowercase package segments.
			parts := strings.Split(pkg, ".")
			var keep []string
			for _, p := range parts {
				if p == "" || (p[0] >= 'A' && p[0] <= 'Z') || strings.ContainsAny(p, "$<>") {
					break
				}
				keep = append(keep, p)
			}
			if len(keep) > 0 {
				return strings.Join(keep, "/") + "/" + file
			}
		}
		return file
	}
	for _, prefix := range []string{"/usr/src/app/", "/app/", "/srv/app/", "/srv/", "/code/", "/workspace/", "/opt/app/", "/home/app/", "/src/", "/go/src/", "/var/task/", "/build/", "/var/www/html/", "/var/www/", "/rails/"} {
		if strings.HasPrefix(file, prefix) {
			return strings.TrimPrefix(file, prefix)
		}
	}
	return strings.TrimPrefix(path.Clean(file), "/")
}

// threadUnsafeFrameRE: library frames of objects that are not safe to share
// between threads (java.text formatters, calendars).
var threadUnsafeFrameRE = regexp.MustCompile(`^(?:java\.base/)?(?:java\.text\.(?:DigitList|DecimalFormat|SimpleDateFormat|DateFormat|NumberFormat)|sun\.util\.calendar\.|java\.util\.(?:GregorianCalendar|Calendar))`)

// RaceSite returns the application frame that called into a non-thread-safe
// library object — where the shared instance is used — if the stack has one.
func RaceSite(frames []Frame) (Frame, bool) {
	for i, f := range frames {
		if !threadUnsafeFrameRE.MatchString(f.Function) {
			continue
		}
		for _, g := range frames[i+1:] {
			if threadUnsafeFrameRE.MatchString(g.Function) {
				continue
			}
			if !IsLibraryFrame(g) {
				return g, true
			}
		}
	}
	return Frame{}, false
}

// elixirLibraryApps are OTP applications of the language and common
// libraries: their frames are never the application's code.
var elixirLibraryApps = map[string]bool{"elixir": true, "stdlib": true, "kernel": true, "phoenix": true, "phoenix_live_view": true,
	"plug": true, "plug_cowboy": true, "cowboy": true, "ranch": true, "bandit": true, "thousand_island": true, "ecto": true,
	"ecto_sql": true, "postgrex": true, "myxql": true, "db_connection": true, "telemetry": true, "oban": true, "broadway": true,
	"absinthe": true, "tesla": true, "finch": true, "mint": true, "jason": true, "gen_stage": true, "redix": true}
