package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/sessions"
)

// execBotEnv makes the test binary run `bot` instead of the tests, so the
// tests can start real bot processes without building anything.
const execBotEnv = "AUTOHEAL_TEST_EXEC_BOT"

func TestMain(m *testing.M) {
	if os.Getenv(execBotEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// botProc is one `bot serve` process.
type botProc struct {
	name string
	cmd  *exec.Cmd
	addr string // the HTTP server's address
	logs *syncBuffer
	done chan struct{}
	err  error
}

func (p *botProc) pid() int { return p.cmd.Process.Pid }

// startBotProc runs `bot serve` with env (and nothing else of the test's
// environment but PATH and HOME), and waits until its HTTP server listens.
func startBotProc(t testing.TB, name string, env map[string]string) *botProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "serve")
	cmd.Env = []string{execBotEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	cmd.Stdout = io.Discard
	require.NoError(t, cmd.Start())
	p := &botProc{name: name, cmd: cmd, logs: &syncBuffer{}, done: make(chan struct{})}
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			_, _ = p.logs.Write(append(append([]byte(nil), line...), '\n'))
			var v struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal(line, &v) == nil && v.Msg == "http server listening" && v.Addr != "" {
				select {
				case addrc <- v.Addr:
				default:
				}
			}
		}
	}()
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("%s logs (last 8 KiB):\n%s", name, tail(p.logs.String(), 8<<10))
		}
	})
	select {
	case p.addr = <-addrc:
	case <-p.done:
		t.Fatalf("%s exited before listening: %v\n%s", name, p.err, p.logs.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not start listening\n%s", name, p.logs.String())
	}
	return p
}

// redisForTest connects to the test Redis (failing, never skipping, when it
// is unreachable) and returns "url|prefix" with a prefix whose keys are
// deleted after the test.
func redisForTest(t testing.TB) (*redis.Client, string) {
	t.Helper()
	url := os.Getenv("REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	rdb, err := sessions.Connect(context.Background(), url)
	require.NoError(t, err, "these tests need a real Redis (REDIS_URL or 127.0.0.1:6379)")
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "autoheal-proc-test-" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx := context.Background()
		for _, pattern := range []string{prefix + ":*", "{" + prefix + "}:*"} {
			iter := rdb.Scan(ctx, 0, pattern, 500).Iterator()
			var keys []string
			for iter.Next(ctx) {
				keys = append(keys, iter.Val())
			}
			if len(keys) > 0 {
				_ = rdb.Del(ctx, keys...).Err()
			}
		}
		_ = rdb.Close()
	})
	return rdb, url + "|" + prefix
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// stop sends SIGTERM and returns the exit error (nil: exit status 0).
func (p *botProc) stop(ctx context.Context) error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s did not stop: %w", p.name, ctx.Err())
	}
}

// kill sends SIGKILL: the process dies at once, whatever it was doing.
func (p *botProc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// consumerOf reports whether a queue consumer name belongs to pid
// (sessions names consumers host-pid-random).
func consumerOf(consumer string, pid int) bool {
	return strings.Contains(consumer, fmt.Sprintf("-%d-", pid))
}
