package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/autoheal/autoheal/redact"
)

// Environment variables read by FromEnv / ConfigFromEnv.
const (
	EnvAPIKey              = "OPENAI_API_KEY"
	EnvBaseURL             = "OPENAI_BASE_URL"
	EnvModel               = "AUTOHEAL_MODEL"
	EnvMaxSteps            = "AUTOHEAL_LLM_MAX_STEPS"
	EnvMaxToolCalls        = "AUTOHEAL_LLM_MAX_TOOL_CALLS"
	EnvMaxPromptTokens     = "AUTOHEAL_LLM_MAX_PROMPT_TOKENS"
	EnvMaxRequestTokens    = "AUTOHEAL_LLM_MAX_REQUEST_TOKENS"
	EnvDeadline            = "AUTOHEAL_LLM_DEADLINE"
	EnvPricePer1K          = "AUTOHEAL_LLM_PRICE_PER_1K"
	EnvRedactIPs           = "AUTOHEAL_LLM_REDACT_IPS"
	EnvProvider            = "AUTOHEAL_LLM_PROVIDER"
	EnvReasoningEffort     = "AUTOHEAL_REASONING_EFFORT"
	EnvMaxCompletionTokens = "AUTOHEAL_LLM_MAX_COMPLETION_TOKENS"
	EnvAzureAPIVersion     = "AUTOHEAL_AZURE_API_VERSION"
)

// DefaultBaseURL is the OpenAI API.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultModel is used when AUTOHEAL_MODEL is unset.
const DefaultModel = "gpt-4.1-mini"

// Limits bound one investigation. Zero values take the defaults.
type Limits struct {
	// MaxSteps bounds the model requests (default 8).
	MaxSteps int
	// MaxToolCalls bounds the tool calls the model may make after the first
	// round (default 8). Calls beyond it are answered "not executed".
	MaxToolCalls int
	// MaxVerifyCalls bounds the source reads the planner makes itself to
	// verify a file the model named but never read (default 2).
	MaxVerifyCalls int
	// MaxRejectedCalls ends the conversation when the model keeps sending
	// malformed or unknown tool calls (default 8).
	MaxRejectedCalls int
	// MaxPromptTokens bounds the prompt tokens of all requests together
	// (default 60000). A request that would cross it is not sent.
	MaxPromptTokens int
	// MaxRequestTokens bounds the prompt of one request (default 20000):
	// older tool results are compacted to fit, below a model's context
	// window.
	MaxRequestTokens int
	// MaxCompletionTokens is the room of one answer (default 2048); a
	// reasoning model gets its reasoning allowance on top, and an answer
	// cut at the limit doubles it for the next request.
	MaxCompletionTokens int
	// Deadline bounds the whole investigation, first round included (default 120 s).
	Deadline time.Duration
	// RequestTimeout bounds one HTTP attempt (default 60 s).
	RequestTimeout time.Duration
	// MaxRetries bounds the retries of one request on 429/5xx/timeouts (default 3).
	MaxRetries int
	// MaxRetryWait caps one backoff wait (default 30 s). A Retry-After
	// beyond the remaining deadline ends the retries.
	MaxRetryWait time.Duration
	// MaxResponseBytes bounds one response body (default 1 MiB).
	MaxResponseBytes int64
	// ToolOutputChars bounds one tool output shown to the model (default 6000).
	ToolOutputChars int
	// ConversationChars bounds all tool outputs of one conversation
	// (default 40000); past it, outputs shrink to their summary line.
	ConversationChars int
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxSteps, 8)
	def(&l.MaxToolCalls, 8)
	def(&l.MaxVerifyCalls, 2)
	def(&l.MaxRejectedCalls, 8)
	def(&l.MaxPromptTokens, 60000)
	def(&l.MaxRequestTokens, 20000)
	def(&l.MaxCompletionTokens, 2048)
	def(&l.MaxRetries, 3)
	def(&l.ToolOutputChars, 6000)
	def(&l.ConversationChars, 40000)
	if l.MaxSteps < 2 {
		l.MaxSteps = 2 // one request for tools, one for the answer
	}
	if l.Deadline <= 0 {
		l.Deadline = 120 * time.Second
	}
	if l.RequestTimeout <= 0 {
		l.RequestTimeout = 60 * time.Second
	}
	if l.MaxRetryWait <= 0 {
		l.MaxRetryWait = 30 * time.Second
	}
	if l.MaxResponseBytes <= 0 {
		l.MaxResponseBytes = 1 << 20
	}
	l.ToolOutputChars = max(l.ToolOutputChars, 600)
	return l
}

// Config is the endpoint and limits of a planner. APIKey is a secret: it is
// registered with the redactor and never logged.
type Config struct {
	APIKey  string
	BaseURL string // default DefaultBaseURL
	Model   string // default DefaultModel
	Limits  Limits
	// Price overrides the built-in price table for Model (nil: table).
	Price *Price
	// RedactIPs masks IPv4 addresses in everything shown to the model
	// (emails and card numbers are always masked).
	RedactIPs bool
	// Provider selects the known quirks of the server (one of Providers);
	// empty: recognised by its address, else probed once.
	Provider string
	// ReasoningEffort (none|minimal|low|medium|high) marks a reasoning
	// model: sent as reasoning_effort, no temperature, and the completion
	// limit leaves room for the reasoning on top of the answer. Empty: a
	// model is taken for a reasoning model by its name or when it refuses
	// a temperature.
	ReasoningEffort string
	// AzureAPIVersion is the api-version of Azure's deployments API
	// (default DefaultAzureAPIVersion).
	AzureAPIVersion string
}

// DefaultAzureAPIVersion is a GA version of Azure OpenAI's data plane.
const DefaultAzureAPIVersion = "2024-10-21"

// azureDeployments reports an Azure endpoint reached through its
// deployments API (an Azure /openai/v1 base URL speaks OpenAI's own API).
func azureDeployments(c Config) bool {
	name := c.Provider
	if name == "" {
		name = providerFromURL(c.BaseURL)
	}
	return name == ProviderAzure && !strings.Contains(strings.ToLower(c.BaseURL), "/openai/v1")
}

// String never prints the key.
func (c Config) String() string {
	return fmt.Sprintf("llm.Config{BaseURL:%q Model:%q}", c.BaseURL, c.Model)
}

// GoString never prints the key.
func (c Config) GoString() string { return c.String() }

// Doer sends HTTP requests (an *http.Client).
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// Options carry the planner's dependencies.
type Options struct {
	Logger *slog.Logger
	// Redactor is the shared redaction path (default redact.Default, where
	// configured secrets are registered).
	Redactor *redact.Redactor
	// HTTPClient sends the requests (default an *http.Client without timeout;
	// the planner bounds each attempt itself).
	HTTPClient Doer
	// Record, when set, receives every exchange with the model as JSON lines
	// (bodies redacted, no credentials) for later replay.
	Record io.Writer
	// Metrics receives counters (default DefaultCounters).
	Metrics Metrics
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Sleep waits between retries (default: a timer that ends with ctx).
	Sleep func(ctx context.Context, d time.Duration) error
	// Random fills fence ids (default crypto/rand).
	Random io.Reader
}

// Errors of configuration.
var (
	ErrNoAPIKey  = errors.New("llm: no API key")
	ErrBadConfig = errors.New("llm: invalid configuration")
)

// ConfigFromEnv reads the configuration from the environment through getenv.
// ok is false when OPENAI_API_KEY is unset (the LLM planner is off).
func ConfigFromEnv(getenv func(string) string) (cfg Config, ok bool, err error) {
	cfg.APIKey = strings.TrimSpace(getenv(EnvAPIKey))
	if cfg.APIKey == "" {
		return Config{}, false, nil
	}
	cfg.BaseURL = strings.TrimSpace(getenv(EnvBaseURL))
	cfg.Model = strings.TrimSpace(getenv(EnvModel))
	var errs []error
	intVar := func(name string, dst *int) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			errs = append(errs, fmt.Errorf("%s=%q: want a positive integer", name, v))
			return
		}
		*dst = n
	}
	intVar(EnvMaxSteps, &cfg.Limits.MaxSteps)
	intVar(EnvMaxToolCalls, &cfg.Limits.MaxToolCalls)
	intVar(EnvMaxPromptTokens, &cfg.Limits.MaxPromptTokens)
	intVar(EnvMaxRequestTokens, &cfg.Limits.MaxRequestTokens)
	intVar(EnvMaxCompletionTokens, &cfg.Limits.MaxCompletionTokens)
	cfg.Provider = strings.ToLower(strings.TrimSpace(getenv(EnvProvider)))
	cfg.ReasoningEffort = strings.ToLower(strings.TrimSpace(getenv(EnvReasoningEffort)))
	cfg.AzureAPIVersion = strings.TrimSpace(getenv(EnvAzureAPIVersion))
	if err := cfg.checkChoices(); err != nil {
		errs = append(errs, err)
	}
	if v := strings.TrimSpace(getenv(EnvDeadline)); v != "" {
		d, err := parseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %w", EnvDeadline, v, err))
		}
		cfg.Limits.Deadline = d
	}
	if v := strings.TrimSpace(getenv(EnvPricePer1K)); v != "" {
		p, err := ParsePrice(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", EnvPricePer1K, err))
		}
		cfg.Price = p
	}
	if v := strings.TrimSpace(getenv(EnvRedactIPs)); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: want true or false", EnvRedactIPs, v))
		}
		cfg.RedactIPs = b
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, true, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	return cfg, true, nil
}

// parseDuration accepts a Go duration ("90s", "2m") or whole seconds ("90").
func parseDuration(v string) (time.Duration, error) {
	if n, err := strconv.Atoi(v); err == nil {
		if n <= 0 {
			return 0, errors.New("want a positive duration")
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, errors.New("want a positive duration such as 90s or 2m")
	}
	return d, nil
}

// FromEnv builds a planner from the environment. It returns nil, nil when
// OPENAI_API_KEY is unset: callers then use the deterministic engine.
func FromEnv(opts Options) (*Planner, error) {
	cfg, ok, err := ConfigFromEnv(os.Getenv)
	if !ok {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return New(cfg, opts)
}

// reasoningEfforts are the accepted AUTOHEAL_REASONING_EFFORT values.
var reasoningEfforts = []string{"none", "minimal", "low", "medium", "high"}

func (c Config) checkChoices() error {
	var errs []error
	if c.Provider != "" && !slices.Contains(Providers, c.Provider) {
		errs = append(errs, fmt.Errorf("%s=%q: want one of %s", EnvProvider, c.Provider, strings.Join(Providers, ", ")))
	}
	if c.ReasoningEffort != "" && !slices.Contains(reasoningEfforts, c.ReasoningEffort) {
		errs = append(errs, fmt.Errorf("%s=%q: want one of %s", EnvReasoningEffort, c.ReasoningEffort, strings.Join(reasoningEfforts, ", ")))
	}
	return errors.Join(errs...)
}

func (c Config) validate() (Config, error) {
	if strings.TrimSpace(c.APIKey) == "" {
		return c, ErrNoAPIKey
	}
	if err := c.checkChoices(); err != nil {
		return c, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	if c.AzureAPIVersion == "" {
		c.AzureAPIVersion = DefaultAzureAPIVersion
	}
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The URL may carry credentials: never echo it.
		return c, fmt.Errorf("%w: %s must be an http(s) URL", ErrBadConfig, EnvBaseURL)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.Model == "" {
		c.Model = DefaultModel
	}
	c.Limits = c.Limits.withDefaults()
	return c, nil
}
