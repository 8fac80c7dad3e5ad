// Command helmcheck lints, renders and validates a Helm chart offline.
//
//	helmcheck [flags] [-f values.yaml]...   helm lint --strict, helm template and validation of the result
//	helmcheck validate [flags] FILE|-...    validation of rendered manifests (e.g. `helm template … | helmcheck validate -`)
//
// Every problem is printed as "template: Kind/namespace/name: field: message"
// and makes the exit status 1.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"sort"
	"strings"

	"github.com/autoheal/autoheal/deploy/helm/validate"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	// Helm logs a template's `fail` in lint mode; the result says it once.
	log.SetOutput(io.Discard)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	validateOnly := len(args) > 0 && args[0] == "validate"
	if validateOnly {
		args = args[1:]
	}
	fs := flag.NewFlagSet("helmcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var values multi
	chart := fs.String("chart", "deploy/helm/autoheal", "chart directory")
	release := fs.String("release", "autoheal", "release name")
	namespace := fs.String("namespace", "autoheal", "release namespace (every namespaced object must be in it)")
	kube := fs.String("kube-version", validate.DefaultKubeVersion, "Kubernetes version to render for")
	out := fs.String("o", "", "write the rendered manifests to this file")
	notes := fs.String("notes", "", "write the rendered NOTES.txt to this file")
	fs.Var(&values, "f", "values file (repeatable; later files win)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	opts := validate.DefaultOptions(*namespace)
	if validateOnly {
		if fs.NArg() == 0 {
			fmt.Fprintln(stderr, "helmcheck validate: name the manifest files (or - for stdin)")
			return 2
		}
		// Each file is one release's manifests, checked on its own.
		status := 0
		for _, name := range fs.Args() {
			var data []byte
			var err error
			if name == "-" {
				data, err = io.ReadAll(stdin)
			} else {
				data, err = os.ReadFile(name)
			}
			if err != nil {
				fmt.Fprintf(stderr, "helmcheck: %v\n", err)
				return 2
			}
			objs, probs := validate.Decode(name, data)
			probs = append(probs, validate.Check(objs, opts)...)
			status = max(status, report(stdout, stderr, name, objs, probs))
		}
		return status
	}
	label := strings.Join(values, " + ")
	if label == "" {
		label = "default values"
	}
	ro := validate.RenderOptions{ReleaseName: *release, Namespace: *namespace, KubeVersion: *kube, ValuesFiles: values}
	res := validate.CheckChart(*chart, ro, opts)
	if res.Rendered != nil {
		if *out != "" {
			if err := os.WriteFile(*out, []byte(res.Rendered.Manifest), 0o644); err != nil {
				fmt.Fprintf(stderr, "helmcheck: %v\n", err)
				return 2
			}
		}
		if *notes != "" {
			if err := os.WriteFile(*notes, []byte(res.Rendered.Notes), 0o644); err != nil {
				fmt.Fprintf(stderr, "helmcheck: %v\n", err)
				return 2
			}
		}
	}
	if len(res.Lint) > 0 || res.Err != nil {
		fmt.Fprintf(stderr, "FAIL %s:\n", label)
		for _, line := range strings.Split(strings.TrimRight(res.String(), "\n"), "\n") {
			fmt.Fprintf(stderr, "  %s\n", line)
		}
		return 1
	}
	return report(stdout, stderr, label, res.Objects, res.Problems)
}

func report(stdout, stderr io.Writer, label string, objs []*validate.Object, probs []validate.Problem) int {
	if len(probs) > 0 {
		fmt.Fprintf(stderr, "FAIL %s: %d problem(s):\n", label, len(probs))
		for _, p := range probs {
			fmt.Fprintf(stderr, "  %s\n", p)
		}
		return 1
	}
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.GVK.Kind]++
	}
	var parts []string
	for k, n := range kinds {
		parts = append(parts, fmt.Sprintf("%s×%d", k, n))
	}
	sort.Strings(parts)
	fmt.Fprintf(stdout, "ok   %s: %d objects (%s)\n", label, len(objs), strings.Join(parts, ", "))
	return 0
}
