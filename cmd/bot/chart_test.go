package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
)

// bot investigate --chart FILE writes the evidence chart of the result.
func TestInvestigateWritesTheChart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "evidence.png")
	_, stderr, code := run(t, "investigate", "--no-llm", "--scenario", filepath.Join(cliExamples, "checkout-fails-payment-typeerror"), "--chart", file)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "payment: error ratio")
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	assert.Equal(t, 800, img.Bounds().Dx())
	assert.LessOrEqual(t, len(raw), 200<<10)
}

// The model's answer carries the same chart when it blames the same
// service.
func TestModelResultHasTheChart(t *testing.T) {
	modelEnv(t)
	out, stderr, code := run(t, "investigate", "--json", "--scenario", filepath.Join(cliExamples, "checkout-fails-payment-typeerror"))
	require.Equal(t, 0, code, stderr)
	var res investigate.HealResult
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Equal(t, investigate.ModeLLM, res.Mode)
	require.NotNil(t, res.Chart)
	assert.Equal(t, "payment", res.Chart.Service)
	assert.Equal(t, "16:12", res.Chart.Onset.Format("15:04"))
	require.NotNil(t, res.Chart.Change)
	assert.Equal(t, "0cb5b9c", res.Chart.Change.SHA)
}
