package remediate

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Environment variables read by GitHubOptionsFromEnv.
const (
	EnvGitHubAPIURL         = "GITHUB_API_URL"
	EnvGitHubToken          = "GITHUB_TOKEN"
	EnvGitHubAppID          = "GITHUB_APP_ID"
	EnvGitHubInstallationID = "GITHUB_APP_INSTALLATION_ID"
	EnvGitHubAppKey         = "GITHUB_APP_PRIVATE_KEY"      // PEM content
	EnvGitHubAppKeyFile     = "GITHUB_APP_PRIVATE_KEY_FILE" // or a path to it
)

// GitHubOptionsFromEnv reads the GitHub settings: a GitHub App when
// GITHUB_APP_ID is set (with GITHUB_APP_INSTALLATION_ID and the private key
// in GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE), else
// GITHUB_TOKEN. getenv is os.Getenv in production. Errors name variables,
// never values.
func GitHubOptionsFromEnv(getenv func(string) string) (GitHubOptions, error) {
	o := GitHubOptions{APIURL: strings.TrimSpace(getenv(EnvGitHubAPIURL)), Token: strings.TrimSpace(getenv(EnvGitHubToken))}
	appID := strings.TrimSpace(getenv(EnvGitHubAppID))
	if appID == "" {
		return o, nil
	}
	id, err := strconv.ParseInt(appID, 10, 64)
	if err != nil || id <= 0 {
		return GitHubOptions{}, fmt.Errorf("remediate: %s must be a positive integer", EnvGitHubAppID)
	}
	inst, err := strconv.ParseInt(strings.TrimSpace(getenv(EnvGitHubInstallationID)), 10, 64)
	if err != nil || inst <= 0 {
		return GitHubOptions{}, fmt.Errorf("remediate: %s is set, so %s must be a positive integer", EnvGitHubAppID, EnvGitHubInstallationID)
	}
	key := []byte(getenv(EnvGitHubAppKey))
	if len(key) == 0 {
		p := strings.TrimSpace(getenv(EnvGitHubAppKeyFile))
		if p == "" {
			return GitHubOptions{}, fmt.Errorf("remediate: %s is set, so %s or %s must be", EnvGitHubAppID, EnvGitHubAppKey, EnvGitHubAppKeyFile)
		}
		if key, err = os.ReadFile(p); err != nil {
			return GitHubOptions{}, fmt.Errorf("remediate: read %s: %w", EnvGitHubAppKeyFile, err)
		}
	}
	if _, err := parseAppKey(key); err != nil {
		return GitHubOptions{}, fmt.Errorf("remediate: %s: %w", EnvGitHubAppKey, err)
	}
	o.App = &AppCredentials{AppID: id, InstallationID: inst, PrivateKeyPEM: key}
	o.Token = ""
	return o, nil
}
