package investigate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigPathsIncludeUnitsAndTemplates(t *testing.T) {
	for _, p := range []string{"deploy/roles/x/templates/x.service.j2", "etc/systemd/system/x.service", "conf/app.conf.tmpl", "deploy/values.yaml.gotmpl"} {
		assert.True(t, IsConfigPath(p), p)
	}
	for _, p := range []string{"app/views/checkout/_review.html.erb", "src/main.go", "templates/index.html.j2"} {
		assert.False(t, IsConfigPath(p), p)
	}
}

func TestFileDescriptorLimitBelongsInTheUnitTheChangeWrote(t *testing.T) {
	onset := time.Date(2026, 6, 15, 13, 0, 0, 0, time.UTC)
	unit := Finding{Kind: KindChangeCorrelation, File: "deploy/roles/signal/templates/signal.service.j2", Time: onset.Add(-90 * time.Hour),
		Attrs: map[string]string{"added": "1:[Unit]\n2:Description=signal\n5:\n6:[Service]\n7:Type=simple\n12:ExecStart=/opt/signal/bin/run\n17:[Install]"}}
	compose := Finding{Kind: KindChangeCorrelation, File: "deploy/docker-compose.signal.yml", Time: onset.Add(-90 * time.Hour),
		Attrs: map[string]string{"removed": "7:    ulimits:\n8:      nofile:\n9:        soft: 65536"}}
	fd := &candidate{Service: "signal", ErrorType: ErrResourceExhaustion, Support: []Finding{{Signature: "go-fd", Quote: "OSError: [Errno 24] Too many open files"}}}
	ev := &evidence{onset: onset, findings: []Finding{unit, compose}}
	l, ok := ev.resourceSettingChange(fd)
	require.True(t, ok, "the unit the change wrote has no LimitNOFILE: it belongs under [Service]")
	assert.Equal(t, unit.File, l.change.File)
	assert.Equal(t, 6, l.line)

	// When a change sets the bound, that line is the place.
	set := Finding{Kind: KindChangeCorrelation, File: "deploy/roles/signal/templates/signal.service.j2", Time: onset.Add(-2 * time.Hour),
		Attrs: map[string]string{"added": "8:LimitNOFILE=1024"}}
	ev = &evidence{onset: onset, findings: []Finding{unit, set}}
	l, ok = ev.resourceSettingChange(fd)
	require.True(t, ok)
	assert.Equal(t, 8, l.line)

	// Other exhaustion (a pool) has no such bound to look for.
	pool := &candidate{Service: "signal", ErrorType: ErrResourceExhaustion, Support: []Finding{{Signature: "db-pool"}}}
	_, ok = ev.resourceSettingChange(pool)
	assert.False(t, ok)
}

func TestMemoryBackedVolumeBeforeOOMKills(t *testing.T) {
	onset := time.Date(2026, 10, 2, 14, 11, 0, 0, time.UTC)
	change := Finding{Kind: KindChangeCorrelation, File: "deploy/k8s/resizer/deployment.yaml", Time: onset.Add(-20 * time.Minute), Quote: "0a2f4c5 resizer: spool to a RAM-backed emptyDir",
		Attrs: map[string]string{"added": "24:            - name: TMPDIR\n38:        - name: scratch\n39:          emptyDir:\n40:            medium: Memory\n41:            sizeLimit: 4Gi"}}
	oom := &candidate{Service: "resizer", ErrorType: ErrOOM}
	ev := &evidence{onset: onset, impact: onset, findings: []Finding{change}}
	l, ok := ev.memoryVolumeChange(oom)
	require.True(t, ok)
	assert.Equal(t, 40, l.line)

	// A disk-backed emptyDir is not charged to memory.
	disk := change
	disk.Attrs = map[string]string{"added": "38:        - name: scratch\n39:          emptyDir:\n40:            sizeLimit: 4Gi"}
	ev = &evidence{onset: onset, findings: []Finding{disk}}
	_, ok = ev.memoryVolumeChange(oom)
	assert.False(t, ok)

	// The verifier does not leave HIGH on the unchanged memory limit while
	// the change just before the impact added the memory-backed volume.
	ev = &evidence{onset: onset, impact: onset, findings: []Finding{change}}
	r := &HealResult{RootCause: RootCause{Service: "resizer", File: "deploy/k8s/resizer/deployment.yaml", Line: 33, Band: BandHigh, Bucket: BucketInfrastructure, ErrorType: ErrOOM}}
	verifyWith(ev, r)
	assert.Equal(t, BandMedium, r.RootCause.Band)
	assert.Contains(t, r.ConfidenceNote, "deployment.yaml:33 was not changed")
	r = &HealResult{RootCause: RootCause{Service: "resizer", File: "deploy/k8s/resizer/deployment.yaml", Line: 40, Band: BandHigh, Bucket: BucketInfrastructure, ErrorType: ErrOOM}}
	verifyWith(ev, r)
	assert.Equal(t, BandHigh, r.RootCause.Band, "the changed line itself")
}
