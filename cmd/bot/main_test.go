package main

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUsageListsEveryCommand(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, 2, dispatch(context.Background(), nil, &out, &errb))
	for _, c := range []string{"investigate", "eval", "sim", "serve", "demo", "version"} {
		assert.Contains(t, errb.String(), "\n  "+c+" ")
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out.Reset()
		assert.Equal(t, 0, dispatch(context.Background(), args, &out, &errb))
		assert.Equal(t, "autoheal "+version+"\n", out.String())
	}
	assert.Equal(t, 2, dispatch(context.Background(), []string{"version", "extra"}, &out, &errb))
}

// CLI commands log at warn unless --log-level or AUTOHEAL_LOG_LEVEL say
// otherwise; serve keeps its own default (info).
func TestCLILogLevel(t *testing.T) {
	t.Setenv(logLevelEnv, "")
	l, err := cliLogLevel("")
	assert.NoError(t, err)
	assert.Equal(t, slog.LevelWarn, l)
	t.Setenv(logLevelEnv, "debug")
	l, err = cliLogLevel("")
	assert.NoError(t, err)
	assert.Equal(t, slog.LevelDebug, l)
	l, err = cliLogLevel("error")
	assert.NoError(t, err)
	assert.Equal(t, slog.LevelError, l, "the flag wins over the environment")
	_, err = cliLogLevel("loud")
	assert.ErrorIs(t, err, errUsage)
	t.Setenv(logLevelEnv, "loud")
	_, err = cliLogLevel("")
	assert.ErrorContains(t, err, logLevelEnv)

	t.Setenv(logLevelEnv, "")
	e, err := loadServeEnv(envFrom(baseServeEnv(nil)))
	assert.NoError(t, err)
	assert.Equal(t, slog.LevelInfo, e.LogLevel)
	e, err = loadServeEnv(envFrom(baseServeEnv(map[string]string{logLevelEnv: "warn"})))
	assert.NoError(t, err)
	assert.Equal(t, slog.LevelWarn, e.LogLevel)
}
