package llm

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/autoheal/autoheal/investigate"
)

// pointedAt reports whether the evidence points at the file:line a model
// names, as opposed to the planner merely having read it:
//   - a failure's stack frame or code location (traces, logs, Kubernetes);
//   - the deterministic engine's own anchor over the same receipts (which
//     includes the recent change it matched to the failure and the
//     manifest setting the failure names);
//   - a line a recent change added or removed in that file;
//   - a manifest setting of the claimed service that the failure names
//     (by its name, or by its kind for the claimed error type).
func pointedAt(receipts []investigate.Receipt, engine, rc investigate.RootCause) bool {
	if rc.File == "" {
		return false
	}
	near := func(file string, line int) bool {
		return samePath(file, rc.File) && (rc.Line <= 0 || line <= 0 || absInt(line-rc.Line) <= 3)
	}
	if engine.File != "" && near(engine.File, engine.Line) {
		return true
	}
	var failures []investigate.Finding
	for _, rec := range receipts {
		if !rec.OK {
			continue
		}
		for _, f := range rec.Findings {
			switch f.Kind {
			case investigate.KindException, investigate.KindErrorSpan, investigate.KindLogPattern, investigate.KindK8sEvent, investigate.KindMetricAnomaly:
				failures = append(failures, f)
			}
		}
	}
	for _, f := range failures {
		for _, fr := range f.Frames {
			if fr.File != "" && (near(fr.File, fr.Line) || near(investigate.PathHint(fr), fr.Line)) {
				return true
			}
		}
		if f.File != "" && near(f.File, f.Line) {
			return true
		}
	}
	for _, rec := range receipts {
		if !rec.OK {
			continue
		}
		for _, f := range rec.Findings {
			switch f.Kind {
			case investigate.KindChangeCorrelation:
				if samePath(f.File, rc.File) && changedLine(f, rc.Line) {
					return true
				}
			case investigate.KindManifest:
				if near(f.File, f.Line) && investigate.NormalizeServiceName(f.Service) == investigate.NormalizeServiceName(rc.Service) &&
					settingNamed(f, rc.ErrorType, failures) {
					return true
				}
			}
		}
	}
	return false
}

var changedLineRE = regexp.MustCompile(`(?m)^(\d+):`)

// changedLine reports whether a change finding's added or removed lines
// (rendered "N: text", one a line) include line (within 3).
func changedLine(f investigate.Finding, line int) bool {
	if line <= 0 {
		return false
	}
	for _, k := range []string{"added", "removed"} {
		for _, m := range changedLineRE.FindAllStringSubmatch(f.Attrs[k], -1) {
			if n, err := strconv.Atoi(m[1]); err == nil && absInt(n-line) <= 3 {
				return true
			}
		}
	}
	return false
}

// settingKinds are the manifest settings a failure of an error type names
// by its nature.
var settingKinds = map[investigate.ErrorType][]string{
	investigate.ErrOOM:                {investigate.FieldMemoryLimit, investigate.FieldMemoryRequest},
	investigate.ErrResourceExhaustion: {investigate.FieldMemoryLimit, investigate.FieldCPULimit, investigate.FieldReplicas, investigate.FieldMaxReplicas},
	investigate.ErrTLS:                {investigate.FieldIssuer, investigate.FieldTLS, investigate.FieldDNSNames},
}

// settingNamed reports whether a manifest finding is a setting the failure
// names: by its name or path in a failure's text, or by its kind for the
// error type.
func settingNamed(f investigate.Finding, et investigate.ErrorType, failures []investigate.Finding) bool {
	kind := f.Attrs["field"]
	for _, k := range settingKinds[et] {
		if kind == k {
			return true
		}
	}
	for _, name := range []string{f.Attrs["name"], path.Base(strings.ReplaceAll(f.Attrs["path"], ".", "/"))} {
		if len(name) < 4 {
			continue
		}
		for _, g := range failures {
			if strings.Contains(g.Quote, name) || strings.Contains(g.Exception, name) {
				return true
			}
		}
	}
	return false
}
