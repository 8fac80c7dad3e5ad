package llm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Providers (AUTOHEAL_LLM_PROVIDER). Each names the quirks of a kind of
// OpenAI-compatible server; unset, the planner probes the endpoint once.
const (
	ProviderOpenAI  = "openai"
	ProviderAzure   = "azure"
	ProviderVLLM    = "vllm"
	ProviderOllama  = "ollama"
	ProviderLiteLLM = "litellm"
	// providerGeneric is an OpenAI-compatible server the probe did not
	// recognise: the most widely accepted request shape.
	providerGeneric = "generic"
)

// Providers lists the accepted AUTOHEAL_LLM_PROVIDER values.
var Providers = []string{ProviderOpenAI, ProviderAzure, ProviderVLLM, ProviderOllama, ProviderLiteLLM}

// quirks are what one kind of server takes and does differently.
type quirks struct {
	name string
	// maxTokens sends the legacy max_tokens limit (Ollama reads only it;
	// OpenAI's reasoning models reject it).
	maxTokens bool
	// maxCompletionTokens sends max_completion_tokens (Ollama ignores it).
	maxCompletionTokens bool
	// toolsOnAnswer keeps the tool list on the final-answer request, with
	// tool_choice "none": behind LiteLLM, Anthropic and Bedrock reject a
	// conversation holding tool calls when no tools are defined.
	toolsOnAnswer bool
	// contextTokens is the server's context window when it says so
	// (vLLM's max_model_len); 0 when unknown.
	contextTokens int
}

func profile(name string) quirks {
	switch name {
	case ProviderOpenAI, ProviderAzure:
		return quirks{name: name, maxCompletionTokens: true}
	case ProviderOllama:
		return quirks{name: name, maxTokens: true}
	case ProviderLiteLLM:
		return quirks{name: name, maxTokens: true, maxCompletionTokens: true, toolsOnAnswer: true}
	}
	// vLLM and unknown servers take both fields (vLLM prefers
	// max_completion_tokens when both are set).
	return quirks{name: name, maxTokens: true, maxCompletionTokens: true}
}

// providerFromURL recognises a provider by its endpoint alone.
func providerFromURL(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "api.openai.com":
		return ProviderOpenAI
	case strings.HasSuffix(host, ".openai.azure.com"), strings.HasSuffix(host, ".cognitiveservices.azure.com"),
		strings.HasSuffix(host, ".services.ai.azure.com"):
		return ProviderAzure
	case u.Port() == "11434":
		return ProviderOllama
	}
	return ""
}

// maxProbeBytes bounds the /models answer read by the probe.
const maxProbeBytes = 1 << 20

// probe asks the endpoint's model list who serves it: vLLM says
// owned_by "vllm" and gives max_model_len, Ollama says owned_by "library",
// LiteLLM adds x-litellm-* headers. Anything else is a generic server.
func probe(ctx context.Context, d Doer, base, key string, azure bool) quirks {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/models", nil)
	if err != nil {
		return profile(providerGeneric)
	}
	if azure {
		req.Header.Set("api-key", key)
	} else {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := d.Do(req)
	if err != nil {
		return profile(providerGeneric)
	}
	defer resp.Body.Close()
	for k := range resp.Header {
		if strings.HasPrefix(strings.ToLower(k), "x-litellm-") {
			return profile(ProviderLiteLLM)
		}
	}
	var list struct {
		Data []struct {
			OwnedBy     string `json:"owned_by"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, maxProbeBytes)).Decode(&list) != nil {
		return profile(providerGeneric)
	}
	for _, m := range list.Data {
		switch {
		case m.OwnedBy == "vllm" || m.MaxModelLen > 0:
			q := profile(ProviderVLLM)
			q.contextTokens = m.MaxModelLen
			return q
		case m.OwnedBy == "library" || m.OwnedBy == "ollama":
			return profile(ProviderOllama)
		case m.OwnedBy == "system" || m.OwnedBy == "openai" || m.OwnedBy == "openai-internal":
			return profile(ProviderOpenAI)
		}
	}
	return profile(providerGeneric)
}
