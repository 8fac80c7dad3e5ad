package mcp

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Protocol version negotiation.
//
// Asked for the newest version, 2026-07-28, mcp-go probes with
// server/discover and takes any answer as agreement. A stateful
// streamable-HTTP server on the go-sdk (kubernetes-mcp-server's default)
// answers server/discover but refuses every later request at that version
// ("protocol version ... is only supported on stateless HTTP servers", or
// an unsupported-version error naming its versions), so nothing works.
//
// The handshake therefore asks for the newest version of the initialize
// handshake, 2025-11-25, which servers of every SDK speak: stateful and
// stateless HTTP and stdio alike; an older server answers with the version
// it has, which mcp-go accepts when it knows it. A server that refuses the
// request and names the versions it supports (one that speaks only the
// stateless protocol) is asked once more at the newest of those both sides
// know. The go-sdk refuses it in plain text over HTTP, after answering
// initialize ("Unsupported protocol version (supported versions:
// 2026-07-28)"); an unsupported-version error carries the list as data.
const handshakeVersion = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION

// handshake connects a fresh client and initializes it, negotiating the
// protocol version. The error is classified.
func (c *Client) handshake(ctx, life context.Context) (*client.Client, *mcpgo.InitializeResult, error) {
	version := handshakeVersion
	for retried := false; ; retried = true {
		cli, res, stage, err := c.initialize(ctx, life, version)
		if err == nil {
			return cli, res, nil
		}
		next := versionToRetry(err, version)
		if next == "" || retried {
			return nil, nil, c.classify(ctx, err, stage)
		}
		c.opts.Logger.Info("mcp server refused the protocol version; asking for one it supports",
			"server", c.cfg.Name, "refused", version, "retry", next)
		version = next
	}
}

// initialize starts a client over a new transport and sends the handshake
// at version; on failure it says at which stage.
func (c *Client) initialize(ctx, life context.Context, version string) (*client.Client, *mcpgo.InitializeResult, string, error) {
	tr, err := c.transport()
	if err != nil {
		return nil, nil, "transport", err
	}
	cli := client.NewClient(tr)
	if err := cli.Start(life); err != nil {
		_ = cli.Close()
		return nil, nil, "start", err
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcpgo.Implementation{Name: "autoheal", Version: c.opts.ClientVersion}
	res, err := cli.Initialize(ctx, req)
	if err != nil {
		_ = cli.Close()
		return nil, nil, "initialize", err
	}
	return cli, res, "", nil
}

// versionToRetry is the version to ask for after err refused requested: the
// newest of the versions the server named that mcp-go knows, or "" when the
// error is no such refusal.
func versionToRetry(err error, requested string) string {
	var supported []string
	var refused mcpgo.UnsupportedProtocolVersionError
	if errors.As(err, &refused) {
		supported = refused.Supported
	} else {
		supported = supportedInText(err.Error())
	}
	if v := mcpgo.NegotiateMutuallySupportedVersion(supported); v != requested {
		return v
	}
	return ""
}

var versionRE = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)

// supportedInText reads the versions a plain-text refusal lists.
func supportedInText(msg string) []string {
	lower := strings.ToLower(msg)
	i := strings.Index(lower, "supported versions")
	if i < 0 || !strings.Contains(lower, "unsupported protocol version") {
		return nil
	}
	return versionRE.FindAllString(msg[i:], -1)
}
