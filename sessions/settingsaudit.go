package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// SettingAudit is one audited settings change: a refused change, or an
// accepted change of where the bot connects or with which credentials.
// It never holds a value: a URL is recorded by its host only.
type SettingAudit struct {
	At       time.Time `json:"at"`
	User     string    `json:"user"`
	Channel  string    `json:"channel"`
	ThreadTS string    `json:"thread_ts,omitempty"`
	Key      string    `json:"key"`
	Outcome  string    `json:"outcome"`          // refused | saved
	Reason   string    `json:"reason,omitempty"` // why it was refused (not_admin, host_not_allowed…)
	Host     string    `json:"host,omitempty"`   // of a URL setting
	Via      string    `json:"via"`              // mention, command, form
}

// maxSettingAudits bounds the settings audit log (the latest are kept).
const maxSettingAudits = 1000

func (s *Store) settingsAuditKey() string { return s.key("audit", "settings") }

// AuditSetting appends an entry to the settings audit log, which keeps the
// latest 1000 entries for ApprovalTTL (30 days by default).
func (s *Store) AuditSetting(ctx context.Context, a SettingAudit) error {
	if a.Key == "" || a.Outcome == "" {
		return invalid("audit entry without a key or an outcome")
	}
	if a.At.IsZero() {
		a.At = time.Now()
	}
	a.At = a.At.UTC()
	a.User, a.Key, a.Reason, a.Host = truncate(a.User, 64), truncate(a.Key, 64), truncate(a.Reason, 64), truncate(a.Host, 255)
	b, err := json.Marshal(a)
	if err != nil {
		return err
	}
	k := s.settingsAuditKey()
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.RPush(ctx, k, b)
		p.LTrim(ctx, k, -maxSettingAudits, -1)
		p.PExpire(ctx, k, s.opts.ApprovalTTL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("sessions: audit setting %s: %w", a.Key, err)
	}
	return nil
}

// SettingAudits returns the latest n entries of the settings audit log,
// oldest first (n <= 0: all kept).
func (s *Store) SettingAudits(ctx context.Context, n int) ([]SettingAudit, error) {
	start := int64(0)
	if n > 0 {
		start = -int64(n)
	}
	raw, err := s.rdb.LRange(ctx, s.settingsAuditKey(), start, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("sessions: read the settings audit: %w", err)
	}
	out := make([]SettingAudit, 0, len(raw))
	for _, r := range raw {
		var a SettingAudit
		if json.Unmarshal([]byte(r), &a) == nil {
			out = append(out, a)
		}
	}
	return out, nil
}
