package config

import (
	"time"

	"github.com/kelseyhightower/envconfig"
)

// Config is read from the environment (see deploy/helm/playback-api/values.yaml).
//
// TTLs are plain integers in seconds: the platform chart validates values.yaml
// against a JSON schema that only knows numbers, and "1h" strings kept failing it.
type Config struct {
	HTTPAddr        string        `envconfig:"HTTP_ADDR" default:":8080"`
	RedisAddr       string        `envconfig:"REDIS_ADDR" required:"true"`
	LicenseProxyURL string        `envconfig:"LICENSE_PROXY_URL" required:"true"`
	CatalogURL      string        `envconfig:"CATALOG_URL" required:"true"`
	RequestTimeout  time.Duration `envconfig:"REQUEST_TIMEOUT" default:"3s"`

	// How long a title's content-protection policy (key IDs, PSSH, output
	// rules) is cached, in seconds. Policies change only when a title is re-packaged.
	PolicyCacheTTLSeconds int `envconfig:"POLICY_CACHE_TTL_SECONDS" default:"3600"`
	// Entitlements change with subscriptions; keep this short (seconds).
	EntitlementCacheTTLSeconds int `envconfig:"ENTITLEMENT_CACHE_TTL_SECONDS" default:"60"`
}

func Load() (Config, error) {
	var c Config
	err := envconfig.Process("", &c)
	return c, err
}
