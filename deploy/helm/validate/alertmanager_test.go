package validate

import (
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The example Alertmanager configuration posts to the chart's Service and
// path with a bearer token, sends resolved notifications, bounds the alerts
// per message and routes with incident-sized groups.
func TestAlertmanagerExample(t *testing.T) {
	b, err := os.ReadFile(chartDir + "/examples/alertmanager.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type webhook struct {
		URL          string `json:"url"`
		SendResolved *bool  `json:"send_resolved"`
		MaxAlerts    int    `json:"max_alerts"`
		Timeout      string `json:"timeout"`
		HTTPConfig   struct {
			Authorization struct {
				Type            string `json:"type"`
				CredentialsFile string `json:"credentials_file"`
				Credentials     string `json:"credentials"`
			} `json:"authorization"`
		} `json:"http_config"`
	}
	type route struct {
		Receiver       string   `json:"receiver"`
		Matchers       []string `json:"matchers"`
		GroupBy        []string `json:"group_by"`
		GroupWait      string   `json:"group_wait"`
		GroupInterval  string   `json:"group_interval"`
		RepeatInterval string   `json:"repeat_interval"`
		Continue       bool     `json:"continue"`
		Routes         []route  `json:"routes"`
	}
	var cfg struct {
		Route     route `json:"route"`
		Receivers []struct {
			Name           string    `json:"name"`
			WebhookConfigs []webhook `json:"webhook_configs"`
		} `json:"receivers"`
	}
	if err := yaml.UnmarshalStrict(b, &cfg); err != nil {
		t.Fatalf("examples/alertmanager.yaml: %v", err)
	}
	var hooks []webhook
	for _, r := range cfg.Receivers {
		if r.Name == "autoheal" {
			hooks = r.WebhookConfigs
		}
	}
	if len(hooks) != 1 {
		t.Fatalf("want one webhook_config in receiver autoheal, got %d", len(hooks))
	}
	h := hooks[0]
	if h.URL != "http://autoheal.<ns>.svc:8080/alerts/alertmanager" {
		t.Errorf("url %q", h.URL)
	}
	if h.SendResolved == nil || !*h.SendResolved {
		t.Error("send_resolved must be true")
	}
	if h.MaxAlerts <= 0 {
		t.Error("max_alerts must bound the alerts per message")
	}
	if a := h.HTTPConfig.Authorization; a.Type != "Bearer" || (a.CredentialsFile == "") == (a.Credentials == "") {
		t.Errorf("want a Bearer authorization with credentials_file or credentials, got %+v", a)
	}
	var found *route
	for i := range cfg.Route.Routes {
		if cfg.Route.Routes[i].Receiver == "autoheal" {
			found = &cfg.Route.Routes[i]
		}
	}
	if found == nil {
		t.Fatal("no route to the autoheal receiver")
	}
	for _, l := range []string{"alertname", "namespace"} {
		if !strings.Contains(strings.Join(found.GroupBy, ","), l) {
			t.Errorf("group_by %v: want %s (one incident thread per group)", found.GroupBy, l)
		}
	}
	for _, l := range found.GroupBy {
		if l == "pod" || l == "instance" || l == "..." {
			t.Errorf("group_by %v: %s would split one incident into many threads", found.GroupBy, l)
		}
	}
	for name, v := range map[string]string{"group_wait": found.GroupWait, "group_interval": found.GroupInterval, "repeat_interval": found.RepeatInterval} {
		if _, err := parsePromDuration(v); err != nil {
			t.Errorf("%s %q: %v", name, v, err)
		}
	}
	if !found.Continue {
		t.Error("continue: true keeps the on-call receivers notified")
	}
}

// NOTES.txt shows the same receiver, with the release's own Service URL.
func TestNotesShowReceiver(t *testing.T) {
	r, err := Render(chartDir, RenderOptions{ReleaseName: "ops", Namespace: "tools", ValuesFiles: []string{chartDir + "/ci/minimal-values.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"url: http://ops-autoheal.tools.svc:8080/alerts/alertmanager",
		"send_resolved: true",
		"credentials_file:",
		"kubectl -n tools create secret generic ops-autoheal",
		"deploy/slack/manifest.yaml",
	} {
		if !strings.Contains(r.Notes, want) {
			t.Errorf("NOTES.txt lacks %q:\n%s", want, r.Notes)
		}
	}
}
