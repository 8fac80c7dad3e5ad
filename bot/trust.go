package bot

import (
	"context"
	"errors"
	"net"
	"net/url"
	"sort"
	"strings"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate/httpc"
	"github.com/autoheal/autoheal/sessions"
)

// Who may change what (the trust boundary of settings):
//
//   - anyone in a channel: any setting of a thread; a thread URL only to
//     an allowed host (AUTOHEAL_ALLOWED_HOSTS and the environment's
//     backends). Credentials typed there are the user's own and go only
//     to the URL they resolve with (sessions.Resolve binds them).
//   - admins (AUTOHEAL_ADMINS): besides, *_url settings and credentials of
//     a whole channel; a URL whose host is not allowed must resolve to
//     public addresses only.
//   - everything else is refused with the key and the reason, logged,
//     counted (autoheal_settings_refused_total) and recorded in the
//     settings audit log in Redis.

// Reasons a setting change is refused (metric label and audit).
const (
	refusedNotAdmin         = "not_admin"
	refusedAdminCheckFailed = "admin_check_failed"
	refusedHostNotAllowed   = "host_not_allowed"
	refusedPrivateAddress   = "private_address"
	refusedUnresolvable     = "unresolvable"
	refusedCredentialsInURL = "credentials_in_url"
	refusedNotAnAbsoluteURL = "invalid_url"
	refusedRepoNotAllowed   = "repo_not_allowed"
)

// Outcomes and channels of a settings change in the audit log.
const (
	settingsAuditSaved   = "saved"
	settingsAuditRefused = "refused"
	viaMention           = "mention"
	viaCommand           = "command"
	viaForm              = "form"
)

// The environment variables that set the trust boundary (named in replies).
const (
	adminsEnv       = "AUTOHEAL_ADMINS"
	allowedHostsEnv = "AUTOHEAL_ALLOWED_HOSTS"
	allowedReposEnv = "AUTOHEAL_ALLOWED_REPOS"
)

const maxRefusalHostLen = 100

// refusal is one setting that was not saved, and why.
type refusal struct {
	Key, Reason, Message, Host string
}

// sensitive reports whether a key decides where the bot connects, with
// which credentials, or what those credentials read (the repository).
func sensitive(key string) bool { return config.IsURL(key) || config.IsBound(key) || key == repoKey }

// repoKey is the repository setting (see repos.go).
const repoKey = "repo"

// vetSettings applies the trust boundary to settings user wants to save in
// scope: it returns what may be saved and the refusals, each audited
// (auditSaved records the accepted changes once they are saved).
func (b *Bot) vetSettings(ctx context.Context, scope sessions.Scope, user, via string, settings map[string]string) (map[string]string, []refusal) {
	allowed := map[string]string{}
	var refused []refusal
	var admin *bool
	isAdmin := func() (bool, error) {
		if admin == nil {
			ok, err := b.o.Admins.Allows(ctx, b.groups, user)
			if err != nil {
				return false, err
			}
			admin = &ok
		}
		return *admin, nil
	}
	for _, k := range sortedKeys(settings) {
		v := settings[k]
		if !sensitive(k) {
			allowed[k] = v
			continue
		}
		r := b.vetSetting(ctx, scope, k, v, isAdmin)
		if r == nil {
			allowed[k] = v
			continue
		}
		refused = append(refused, *r)
		b.auditSetting(ctx, scope, user, via, k, v, settingsAuditRefused, r.Reason)
	}
	return allowed, refused
}

// vetSetting decides one sensitive setting; nil accepts it.
func (b *Bot) vetSetting(ctx context.Context, scope sessions.Scope, key, value string, isAdmin func() (bool, error)) *refusal {
	refuse := func(reason, msg string) *refusal {
		return &refusal{Key: key, Reason: reason, Message: key + ": not saved: " + msg}
	}
	if !scope.IsThread() {
		ok, err := isAdmin()
		if err != nil {
			b.log.Error("admin check failed", "err", err)
			return refuse(refusedAdminCheckFailed, "I could not check the admin list ("+adminsEnv+"); try again in a moment.")
		}
		if !ok {
			hint := "set it for one thread instead (a `" + key + ": …` line in a mention, or Configure under a result)"
			if config.IsURL(key) {
				hint = "a thread may point it at an allowed host (" + allowedHostsEnv + ")"
			}
			return refuse(refusedNotAdmin, "only AutoHeal admins ("+adminsEnv+") may change where the bot connects or its credentials for a whole channel; "+hint+", or ask an admin.")
		}
	}
	if key == repoKey {
		if scope.IsThread() && !repoAllowed(b.o.AllowedRepos, value) {
			return refuse(refusedRepoNotAllowed, "a thread may only name a repository on "+allowedReposEnv+" (the deployment's GitHub credentials read it); an admin can set it for the whole channel with `/autoheal config`, or add it to the list.")
		}
		return nil
	}
	if !config.IsURL(key) {
		return nil
	}
	u, err := url.Parse(strings.TrimSpace(value))
	if err != nil || u.Hostname() == "" {
		return refuse(refusedNotAnAbsoluteURL, "must be an absolute http(s) URL.")
	}
	host := truncateRunes(u.Hostname(), maxRefusalHostLen)
	withHost := func(r *refusal) *refusal { r.Host = host; return r }
	if u.User != nil {
		return refuse(refusedCredentialsInURL, "the URL must not hold credentials; set the token setting next to it instead.")
	}
	if b.guard.Allows(httpc.HostPort(u)) {
		return nil
	}
	if scope.IsThread() {
		return withHost(refuse(refusedHostNotAllowed, "`"+host+"` is not an allowed host ("+allowedHostsEnv+"); a thread may only point at those. An admin can set it for the whole channel with `/autoheal config`."))
	}
	err = b.guard.CheckURL(ctx, value)
	var dnsErr *net.DNSError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, httpc.ErrAddressRefused):
		return withHost(refuse(refusedPrivateAddress, "`"+host+"` is an internal (private, loopback or link-local) address; internal hosts must be on "+allowedHostsEnv+"."))
	case errors.As(err, &dnsErr):
		return withHost(refuse(refusedUnresolvable, "`"+host+"` does not resolve."))
	}
	return withHost(refuse(refusedUnresolvable, "`"+host+"` could not be checked; try again."))
}

// auditSaved records the saved changes of URLs and credentials.
func (b *Bot) auditSaved(ctx context.Context, scope sessions.Scope, user, via string, saved map[string]string) {
	for _, k := range sortedKeys(saved) {
		if sensitive(k) {
			b.auditSetting(ctx, scope, user, via, k, saved[k], settingsAuditSaved, "")
		}
	}
}

// auditSetting records a sensitive change: slog, the refusal counter and
// the Redis settings audit log. Values never go in: a URL by its host.
func (b *Bot) auditSetting(ctx context.Context, scope sessions.Scope, user, via, key, value, outcome, reason string) {
	host := ""
	if config.IsURL(key) {
		if u, err := url.Parse(strings.TrimSpace(value)); err == nil {
			host = truncateRunes(u.Hostname(), maxRefusalHostLen)
		}
	}
	log := b.log.With("user", user, "scope", scope.String(), "key", key, "host", host, "via", via)
	if outcome == settingsAuditRefused {
		log.Warn("setting refused", "reason", reason)
		b.o.Metrics.SettingRefused(key, reason)
	} else {
		log.Info("connection setting changed")
	}
	err := b.o.Store.AuditSetting(ctx, sessions.SettingAudit{User: user, Channel: scope.Channel, ThreadTS: scope.ThreadTS,
		Key: key, Outcome: outcome, Reason: reason, Host: host, Via: via})
	if err != nil {
		log.Error("settings audit not recorded", "err", err)
	}
}

// EnvHosts are the host:port of the URLs in env (the environment
// fallbacks of the settings): always allowed, since the operator
// configured them, and only on their port (a sidecar on 127.0.0.1 does not
// open every port of the pod to thread settings).
func EnvHosts(env map[string]string) []string {
	var out []string
	for _, g := range config.Groups {
		if u, err := url.Parse(strings.TrimSpace(env[g.URL])); err == nil && u.Hostname() != "" {
			out = append(out, httpc.HostPort(u))
		}
	}
	sort.Strings(out)
	return out
}

// refusalTexts are the refusals' messages, for replies.
func refusalTexts(rs []refusal) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Message
	}
	return out
}
