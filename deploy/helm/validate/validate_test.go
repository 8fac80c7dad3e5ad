package validate

import (
	"bufio"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const chartDir = "../autoheal"

func TestMain(m *testing.M) {
	// Helm logs a template's `fail` in lint mode; the results say it.
	log.SetOutput(io.Discard)
	os.Exit(m.Run())
}

func check(t *testing.T, manifest string) []Problem {
	t.Helper()
	objs, probs := Decode("test.yaml", []byte(manifest))
	return append(probs, Check(objs, DefaultOptions("app"))...)
}

func base(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/base.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBaseManifestIsValid(t *testing.T) {
	if probs := check(t, base(t)); len(probs) > 0 {
		t.Fatalf("the base manifest should be valid, got:\n%s", join(probs))
	}
}

func join(probs []Problem) string {
	var s []string
	for _, p := range probs {
		s = append(s, "  "+p.String())
	}
	return strings.Join(s, "\n")
}

// Each case changes the valid base manifest in one place; the check must
// report a problem containing want.
func TestBrokenManifests(t *testing.T) {
	cases := []struct {
		name, old, new, want string
	}{
		{"typo'd field", "imagePullPolicy: IfNotPresent", "imagePulPolicy: IfNotPresent", `unknown field "spec.template.spec.containers[0].imagePulPolicy"`},
		{"typo'd field in a CRD", "scrapeTimeout: 10s", "scrapeTimout: 10s", `unknown field "spec.endpoints[0].scrapeTimout"`},
		{"wrong type", "replicas: 2", `replicas: "two"`, "cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"},
		{"wrong type of a port", "containerPort: 8080", "containerPort: [8080]", "cannot unmarshal array"},
		{"duplicate key", "  replicas: 2\n", "  replicas: 2\n  replicas: 3\n", `key "replicas" already set in map`},
		{"unknown kind", "apiVersion: policy/v1\nkind: PodDisruptionBudget", "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget", "unknown kind policy/v1beta1 PodDisruptionBudget"},
		{"selector does not match the pod labels", "      app.kubernetes.io/component: bot\n  template:", "      app.kubernetes.io/component: worker\n  template:", "does not match the pod template labels"},
		{"service selects no pod", "    app.kubernetes.io/component: bot\n  ports:", "    app.kubernetes.io/component: api\n  ports:", "selects no pod of the manifests"},
		{"service target port", "targetPort: http", "targetPort: web", `web: the pods of Deployment/app/app declare no such port`},
		{"probe port name", "httpGet: {path: /healthz, port: http}", "httpGet: {path: /healthz, port: health}", `"health": the container declares no port of that name`},
		{"probe path", "httpGet: {path: /readyz, port: http}", "httpGet: {path: readyz, port: http}", `"readyz": want an absolute path`},
		{"invalid port name", "- name: http\n              containerPort", "- name: http_port\n              containerPort", `"http_port"`},
		{"root user", "runAsUser: 65532", "runAsUser: 0", "0 is root"},
		{"privilege escalation", "allowPrivilegeEscalation: false", "allowPrivilegeEscalation: true", "allowPrivilegeEscalation: must be false"},
		{"capabilities kept", "capabilities: {drop: [ALL]}", "capabilities: {drop: [NET_RAW]}", "capabilities.drop: must contain ALL"},
		{"writable root filesystem", "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false", "readOnlyRootFilesystem: must be true"},
		{"unconfined seccomp", "seccompProfile: {type: RuntimeDefault}", "seccompProfile: {type: Unconfined}", `"Unconfined": want RuntimeDefault or Localhost`},
		{"env reference before definition", "value: \"redis://:$(REDIS_PASSWORD)@redis:6379/0\"", "value: \"redis://:$(REDIS_PASWORD)@redis:6379/0\"", "$(REDIS_PASWORD) refers to no variable"},
		{"invalid env name", "- name: REDIS_URL", "- name: REDIS=URL", `"REDIS=URL"`},
		{"mount of a missing volume", "- name: config\n              mountPath", "- name: configs\n              mountPath", `"configs": no such volume in the pod`},
		{"missing configmap key", "- key: config.yaml", "- key: settings.yaml", `"settings.yaml": ConfigMap "app-config" has no such key`},
		{"invalid label value", "labels:\n    app.kubernetes.io/name: app\nspec:\n  replicas", "labels:\n    app.kubernetes.io/name: \"app name\"\nspec:\n  replicas", "metadata.labels"},
		{"memory limit missing", "limits: {memory: 256Mi}", "limits: {cpu: 500m}", "limits.memory: required"},
		{"request above limit", "requests: {cpu: 100m, memory: 128Mi}", "requests: {cpu: 100m, memory: 1Gi}", "request 1Gi is above the limit 256Mi"},
		{"write verb in RBAC", "verbs: [get, list, watch]", "verbs: [get, list, watch, delete]", `"delete": only get, list and watch`},
		{"secrets in RBAC", "resources: [pods, pods/log, events]", "resources: [pods, secrets]", "Secrets are never readable"},
		{"binding to a missing role", "  kind: Role\n  name: app-read", "  kind: Role\n  name: app-reader", `Role "app-reader" is not in namespace`},
		{"PDB selects nothing", "  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: app", "  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: other", "selects no pod of the manifests"},
		{"ServiceMonitor port", "- port: http\n      path: /metrics", "- port: metrics\n      path: /metrics", `"metrics": Service app has no port of that name`},
		{"ServiceMonitor timeout", "scrapeTimeout: 10s", "scrapeTimeout: 1m", "longer than the interval"},
		{"bad CIDR", "cidr: 0.0.0.0/0", "cidr: 0.0.0.0/33", "not a CIDR"},
		{"network policy port", "        - port: http\n      from:", "        - port: https\n      from:", `"https": the pods of Deployment/app/app declare no such port`},
		{"wrong namespace", "  name: app-config\n  namespace: app", "  name: app-config\n  namespace: default", `expected the release namespace "app"`},
		{"missing service account", "serviceAccountName: app", "serviceAccountName: bot", `"bot": no such ServiceAccount`},
		{"bad YAML in a ConfigMap", "routes: []", "routes: [", "not valid YAML"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := base(t)
			if !strings.Contains(b, tc.old) {
				t.Fatalf("the base manifest has no %q", tc.old)
			}
			probs := check(t, strings.Replace(b, tc.old, tc.new, 1))
			for _, p := range probs {
				if strings.Contains(p.String(), tc.want) {
					return
				}
			}
			t.Fatalf("want a problem containing %q, got:\n%s", tc.want, join(probs))
		})
	}
}

func ciValues(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(chartDir, "ci", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no values files in %s/ci: %v", chartDir, err)
	}
	return files
}

// The chart, rendered with every values file of ci/, lints clean and
// passes the validation.
func TestChartRendersValid(t *testing.T) {
	for _, f := range ciValues(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			o := RenderOptions{ValuesFiles: []string{f}}
			msgs, err := Lint(chartDir, o)
			if err != nil || len(msgs) > 0 {
				t.Fatalf("helm lint --strict: %v %v", err, msgs)
			}
			r, err := Render(chartDir, o)
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			objs, probs := Decode(f, []byte(r.Manifest))
			probs = append(probs, Check(objs, DefaultOptions("autoheal"))...)
			if len(probs) > 0 {
				t.Fatalf("problems:\n%s", join(probs))
			}
			kinds := map[string]bool{}
			for _, o := range objs {
				kinds[o.GVK.Kind] = true
			}
			for _, k := range []string{"Deployment", "Service", "ConfigMap"} {
				if !kinds[k] {
					t.Errorf("no %s rendered", k)
				}
			}
			if !strings.Contains(r.Notes, "/alerts/alertmanager") {
				t.Errorf("NOTES do not show the webhook URL:\n%s", r.Notes)
			}
		})
	}
}

// Every file of testdata/bad-values, merged over ci/minimal-values.yaml,
// must make the check fail with the message its "# expect:" line names.
func TestBadValuesFail(t *testing.T) {
	files, _ := filepath.Glob("testdata/bad-values/*.yaml")
	if len(files) == 0 {
		t.Fatal("no bad values files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want := expectLine(t, f)
			out := CheckChart(chartDir, RenderOptions{ValuesFiles: []string{filepath.Join(chartDir, "ci", "minimal-values.yaml"), f}}, DefaultOptions("autoheal"))
			if out.OK() {
				t.Fatalf("the check passed; want a failure containing %q", want)
			}
			if !strings.Contains(out.String(), want) {
				t.Fatalf("want a failure containing %q, got:\n%s", want, out)
			}
		})
	}
}

func expectLine(t *testing.T, file string) string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "# expect: "); ok {
			return s
		}
	}
	t.Fatalf("%s has no '# expect: …' line", file)
	return ""
}

func TestCleanRendersAreDeterministic(t *testing.T) {
	o := RenderOptions{ValuesFiles: []string{filepath.Join(chartDir, "ci", "production-values.yaml")}}
	a, err := Render(chartDir, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Render(chartDir, o)
	if err != nil {
		t.Fatal(err)
	}
	if a.Manifest != b.Manifest {
		t.Fatal("two renders differ: checksum annotations would roll pods on every upgrade")
	}
}

func TestParsePromDuration(t *testing.T) {
	for s, ok := range map[string]bool{"30s": true, "1m30s": true, "1h": true, "500ms": true, "": false, "30": false, "1.5m": false} {
		if _, err := parsePromDuration(s); (err == nil) != ok {
			t.Errorf("%q: ok=%v, err=%v", s, ok, err)
		}
	}
}
