package investigate

import (
	"path"
	"regexp"
	"strings"
)

// The setting that bounds an exhausted resource, wherever the repository
// sets it (a systemd unit, a compose file, Helm values, Terraform, a
// manifest), and — when no file sets it — the place it belongs in the
// file the recent change wrote. Mechanisms only: what bounds file
// descriptors on Linux, what bounds a broker's or a volume's disk, what
// charges files to a container's memory.

// resourceSpec says how a resource is bounded in configuration.
type resourceSpec struct {
	what string
	// keys are the setting names that bound the resource, as they start a
	// config line (LimitNOFILE=, nofile:, size:).
	keys []string
	// setting matches a changed line that sets or names the bound.
	setting *regexp.Regexp
	// home matches the line of a file under which the setting belongs
	// (a unit's [Service] section, a compose service's ulimits).
	home *regexp.Regexp
	// homeFile says which files home applies to.
	homeFile func(p string) bool
}

var (
	fdSpec = &resourceSpec{
		what:    "file descriptors",
		keys:    []string{"LimitNOFILE", "nofile", "ulimits", "worker_rlimit_nofile", "max_open_files", "open_files_limit"},
		setting: regexp.MustCompile(`(?i)LimitNOFILE|\bnofile\b|ulimit|rlimit_nofile|max_?open_?files|open_files_limit|fs\.file-max|fs\.nr_open`),
		// systemd applies LimitNOFILE= from the [Service] section.
		home:     regexp.MustCompile(`^\s*\[Service\]\s*$`),
		homeFile: isUnitFile,
	}
	diskSpec = &resourceSpec{
		what:    "disk space",
		keys:    []string{"size", "storage", "disk_size", "volume_size", "allocated_storage", "disk_free_limit.absolute"},
		setting: regexp.MustCompile(`(?i)^\s*(?:-\s*)?["']?(?:size|storage|disk_?size|volume_?size|allocated_storage|ephemeral-storage|sizeLimit)["']?\s*[:=]`),
	}
)

// resourceOf returns the spec of the resource a candidate's evidence says
// ran out (nil: not a bounded resource the engine knows how to locate).
func resourceOfCandidate(c *candidate) *resourceSpec {
	if c.ErrorType != ErrResourceExhaustion {
		return nil
	}
	switch {
	case c.hasSignature("go-fd"):
		return fdSpec
	case c.hasSignature("disk-full"):
		return diskSpec
	}
	return nil
}

// unitExts are systemd unit files.
var unitExts = map[string]bool{".service": true, ".socket": true, ".slice": true, ".mount": true, ".timer": true}

// templateExts wrap a config file in a template language
// (visit.service.j2, app.conf.tmpl, values.yaml.gotmpl).
var templateExts = map[string]bool{".j2": true, ".jinja": true, ".jinja2": true, ".tmpl": true, ".gotmpl": true, ".erb": true, ".tpl": true, ".template": true}

// untemplated strips a template extension (x.service.j2 -> x.service).
func untemplated(p string) string {
	if templateExts[strings.ToLower(path.Ext(p))] {
		return strings.TrimSuffix(p, path.Ext(p))
	}
	return p
}

// isUnitFile reports whether p is a systemd unit or its template.
func isUnitFile(p string) bool {
	return unitExts[strings.ToLower(path.Ext(untemplated(p)))]
}

// resourceSettingChange finds where the bound of the exhausted resource is
// set by a recent change to the service's configuration (preferring the
// newest change), or, when that change wrote a file without it, the line
// under which it belongs in that file.
func (ev *evidence) resourceSettingChange(c *candidate) (changeLine, bool) {
	spec := resourceOfCandidate(c)
	if spec == nil {
		return changeLine{}, false
	}
	related := func(f Finding) bool {
		return IsConfigPath(f.File) && (ev.relatedTo(f, c.Service) || ev.namespaceWide(f, c))
	}
	lines := withoutRaisedLimits(ev.addedLinesBefore(related, ev.onset, leakLookback))
	for _, l := range lines {
		if spec.setting.MatchString(l.text) {
			return l, true
		}
	}
	if spec.home == nil {
		return changeLine{}, false
	}
	for _, l := range lines {
		if spec.homeFile != nil && !spec.homeFile(l.change.File) {
			continue
		}
		if spec.home.MatchString(l.text) {
			return l, true
		}
	}
	return changeLine{}, false
}

// memoryBackedVolumeRE: a volume whose files live in RAM (tmpfs): every
// byte written there is charged to the container's memory cgroup, so it
// counts against the memory limit the OOM killer enforces.
var memoryBackedVolumeRE = regexp.MustCompile(`(?i)^\s*(?:-\s*)?medium:\s*["']?Memory\b|^\s*(?:-\s*)?type:\s*["']?tmpfs\b|^\s*(?:-\s*)?tmpfs:|\bshm_size\b|\bsize_limit\b.*tmpfs`)

// memoryVolumeChange finds a recent change to the service's configuration
// that put a memory-backed volume in front of an OOM kill: its files count
// against the limit, so the volume, not the limit, is what changed.
func (ev *evidence) memoryVolumeChange(c *candidate) (changeLine, bool) {
	if c.ErrorType != ErrOOM {
		return changeLine{}, false
	}
	lines := ev.recentChangeLines(func(f Finding) bool { return IsConfigPath(f.File) && ev.relatedTo(f, c.Service) })
	for _, l := range lines {
		if memoryBackedVolumeRE.MatchString(l.text) {
			return l, true
		}
	}
	return changeLine{}, false
}
